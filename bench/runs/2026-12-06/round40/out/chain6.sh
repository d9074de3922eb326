#!/bin/bash
# after chain4: a settled-home pair and a pristine-home pair of bench_hook_quiet --phases (base vs r40n), then a prompt pair
while [ ! -f /tmp/r40-ab/final.done ]; do sleep 5; done
hook() { (cd /tmp/r40-bench && PYTHONPATH=$2 /work/main/.venv/bin/python -P bench/bench_hook_quiet.py --rounds 6 --quiet 35 --embedder local --keep $4 --script /tmp/r40-wrap/rn-$1 --phases > $3 2>&1); }
prompt() { (cd /tmp/r40-bench && PYTHONPATH=$2 /work/main/.venv/bin/python -P bench/bench_prompt_hook.py -n 8 --quiet 35 --embedder local --keep /tmp/r40-ph-keep --script /tmp/r40-wrap/rn-$1 --raw $3.json > $3 2>&1); }
hook r40n /tmp/r40-code-nonice /tmp/r40-ab/phases-r40n-5.out /tmp/r40-fp-homes & p1=$!; sleep 10
hook base /tmp/r40-base /tmp/r40-ab/phases-base-5.out /tmp/r40-fp-homes & p2=$!; wait $p1 $p2
hook base /tmp/r40-base /tmp/r40-ab/pristine-base-1.out /tmp/r40-fp-pristine & p1=$!; sleep 10
hook r40n /tmp/r40-code-nonice /tmp/r40-ab/pristine-r40n-1.out /tmp/r40-fp-pristine & p2=$!; wait $p1 $p2
echo done > /tmp/r40-ab/hook56.done
prompt r40n /tmp/r40-code-nonice /tmp/r40-ab/prompt-r40n-5.out & p1=$!; sleep 10
prompt base /tmp/r40-base /tmp/r40-ab/prompt-base-5.out & p2=$!; wait $p1 $p2
echo done > /tmp/r40-ab/prompt56.done
