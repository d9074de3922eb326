#!/bin/bash
# one side-by-side pair of bench_steady (the bench of d327ca9 for both), base first by 10 s
run() { # wrapper tree out
  (cd /tmp/r40-bench && PATH=/work/main/.venv/bin:$PATH PYTHONPATH=$2 /work/main/.venv/bin/python -P bench/bench_steady.py --embedder local --minutes 6 --passes 1 --searches 50 --keep /tmp/r40-fp-homes --script /tmp/r40-wrap/rn-$1 --csv $3.csv > $3 2>&1)
}
run base /tmp/r40-base /tmp/r40-ab/steady-base.out & p1=$!
sleep 10
run r40f /tmp/r40-code /tmp/r40-ab/steady-r40f.out & p2=$!
wait $p1 $p2
echo done > /tmp/r40-ab/steady.done
