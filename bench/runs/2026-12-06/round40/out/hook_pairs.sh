#!/bin/bash
# three side-by-side pairs of bench_hook_quiet, base (main at be89606) and r40; who starts first alternates
run() { # code tree out
  (cd $2 && PYTHONPATH=$2 /work/main/.venv/bin/python -P bench/bench_hook_quiet.py --rounds 6 --quiet 35 --embedder local --keep /tmp/r40-fp-homes --script /tmp/r40-wrap/rn-$1 > $3 2>&1)
}
for n in 1 2 3; do
  if [ $((n % 2)) = 1 ]; then a=base; ta=/tmp/r40-base; b=r40; tb=/work/r40-hooks; else a=r40; ta=/work/r40-hooks; b=base; tb=/tmp/r40-base; fi
  run $a $ta /tmp/r40-ab/hook-$a-$n.out & p1=$!
  sleep 10
  run $b $tb /tmp/r40-ab/hook-$b-$n.out & p2=$!
  wait $p1 $p2
done
echo done > /tmp/r40-ab/hook.done
