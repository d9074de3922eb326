#!/bin/bash
while [ ! -f /tmp/r40-ab/prompt.done ]; do sleep 5; done
/tmp/r40-ab/phase_pairs.sh > /tmp/r40-ab/phase_pairs.log 2>&1
