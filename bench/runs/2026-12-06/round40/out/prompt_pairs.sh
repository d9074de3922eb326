#!/bin/bash
# three side-by-side pairs of bench_prompt_hook after the idle release, base and r40; who starts first alternates
run() { # code tree out
  (cd $2 && PYTHONPATH=$2 /work/main/.venv/bin/python -P bench/bench_prompt_hook.py -n 8 --quiet 35 --embedder local --keep /tmp/r40-ph-keep --script /tmp/r40-wrap/rn-$1 --raw $3.json > $3 2>&1)
}
for n in 1 2 3; do
  if [ $((n % 2)) = 1 ]; then a=base; ta=/tmp/r40-base; b=r40f; tb=/tmp/r40-code; else a=r40f; ta=/tmp/r40-code; b=base; tb=/tmp/r40-base; fi
  run $a $ta /tmp/r40-ab/prompt-$a-$n.out & p1=$!
  sleep 10
  run $b $tb /tmp/r40-ab/prompt-$b-$n.out & p2=$!
  wait $p1 $p2
done
echo done > /tmp/r40-ab/prompt.done
