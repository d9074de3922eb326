#!/bin/bash
# after chain4: two more side-by-side pairs base vs r40n of bench_hook_quiet --phases, then of bench_prompt_hook
while [ ! -f /tmp/r40-ab/final.done ]; do sleep 5; done
hook() { (cd /tmp/r40-bench && PYTHONPATH=$2 /work/main/.venv/bin/python -P bench/bench_hook_quiet.py --rounds 6 --quiet 35 --embedder local --keep /tmp/r40-fp-homes --script /tmp/r40-wrap/rn-$1 --phases > $3 2>&1); }
prompt() { (cd /tmp/r40-bench && PYTHONPATH=$2 /work/main/.venv/bin/python -P bench/bench_prompt_hook.py -n 8 --quiet 35 --embedder local --keep /tmp/r40-ph-keep --script /tmp/r40-wrap/rn-$1 --raw $3.json > $3 2>&1); }
for n in 5 6; do
  if [ $n = 5 ]; then a=r40n; ta=/tmp/r40-code-nonice; b=base; tb=/tmp/r40-base; else a=base; ta=/tmp/r40-base; b=r40n; tb=/tmp/r40-code-nonice; fi
  hook $a $ta /tmp/r40-ab/phases-$a-$n.out & p1=$!; sleep 10
  hook $b $tb /tmp/r40-ab/phases-$b-$n.out & p2=$!; wait $p1 $p2
done
echo done > /tmp/r40-ab/hook56.done
for n in 5 6; do
  if [ $n = 5 ]; then a=base; ta=/tmp/r40-base; b=r40n; tb=/tmp/r40-code-nonice; else a=r40n; ta=/tmp/r40-code-nonice; b=base; tb=/tmp/r40-base; fi
  prompt $a $ta /tmp/r40-ab/prompt-$a-$n.out & p1=$!; sleep 10
  prompt $b $tb /tmp/r40-ab/prompt-$b-$n.out & p2=$!; wait $p1 $p2
done
echo done > /tmp/r40-ab/prompt56.done
