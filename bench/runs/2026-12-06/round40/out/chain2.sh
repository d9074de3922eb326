#!/bin/bash
while [ ! -f /tmp/r40-ab/phases.done ]; do sleep 5; done
/tmp/r40-ab/steady_pair.sh > /tmp/r40-ab/steady_pair.log 2>&1
