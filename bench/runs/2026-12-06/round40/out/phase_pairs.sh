#!/bin/bash
# three side-by-side pairs of bench_hook_quiet --phases (the bench of d327ca9 for both), r40 (c334353) at nice 10 and the same at nice 0 (r40n)
run() { # wrapper tree out
  (cd /tmp/r40-bench && PYTHONPATH=$2 /work/main/.venv/bin/python -P bench/bench_hook_quiet.py --rounds 6 --quiet 35 --embedder local --keep /tmp/r40-fp-homes --script /tmp/r40-wrap/rn-$1 --phases > $3 2>&1)
}
for n in 1 2 3; do
  if [ $((n % 2)) = 1 ]; then a=r40n; ta=/tmp/r40-code-nonice; b=r40f; tb=/tmp/r40-code; else a=r40f; ta=/tmp/r40-code; b=r40n; tb=/tmp/r40-code-nonice; fi
  run $a $ta /tmp/r40-ab/phases-$a-$n.out & p1=$!
  sleep 10
  run $b $tb /tmp/r40-ab/phases-$b-$n.out & p2=$!
  wait $p1 $p2
done
echo done > /tmp/r40-ab/phases.done
