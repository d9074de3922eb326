#!/bin/bash
# after the steady pair: one more side-by-side pair base vs r40f of each hook bench (quiet machine, if it stays so)
while [ ! -f /tmp/r40-ab/steady.done ]; do sleep 5; done
(cd /tmp/r40-bench && PYTHONPATH=/tmp/r40-base /work/main/.venv/bin/python -P bench/bench_hook_quiet.py --rounds 6 --quiet 35 --embedder local --keep /tmp/r40-fp-homes --script /tmp/r40-wrap/rn-base --phases > /tmp/r40-ab/phases-base-4.out 2>&1) &
p1=$!; sleep 10
(cd /tmp/r40-bench && PYTHONPATH=/tmp/r40-code-nonice /work/main/.venv/bin/python -P bench/bench_hook_quiet.py --rounds 6 --quiet 35 --embedder local --keep /tmp/r40-fp-homes --script /tmp/r40-wrap/rn-r40n --phases > /tmp/r40-ab/phases-r40n-4.out 2>&1) &
p2=$!; wait $p1 $p2
(cd /tmp/r40-bench && PYTHONPATH=/tmp/r40-code-nonice /work/main/.venv/bin/python -P bench/bench_prompt_hook.py -n 8 --quiet 35 --embedder local --keep /tmp/r40-ph-keep --script /tmp/r40-wrap/rn-r40n --raw /tmp/r40-ab/prompt-r40n-4.out.json > /tmp/r40-ab/prompt-r40n-4.out 2>&1) &
p1=$!; sleep 10
(cd /tmp/r40-bench && PYTHONPATH=/tmp/r40-base /work/main/.venv/bin/python -P bench/bench_prompt_hook.py -n 8 --quiet 35 --embedder local --keep /tmp/r40-ph-keep --script /tmp/r40-wrap/rn-base --raw /tmp/r40-ab/prompt-base-4.out.json > /tmp/r40-ab/prompt-base-4.out 2>&1) &
p2=$!; wait $p1 $p2
echo done > /tmp/r40-ab/final.done
