#!/bin/bash
# How long a fresh clone takes until `make run` answers, and a restart (docs/benchmarks/startup.md).
# Usage: tools/first_run.sh [repository to clone, default .]; port 8123, the clone in /tmp/fresh.
# first run and restart of make run on a fresh clone; prints seconds
set -u
rm -rf /tmp/fresh && git clone -q "${1:-.}" /tmp/fresh && cd /tmp/fresh
measure() {
  start=$(date +%s.%N)
  setsid make run PORT=8123 > /tmp/fresh-run-$1.log 2>&1 &
  pid=$!
  until curl -fs -o /dev/null http://127.0.0.1:8123/; do sleep 1; if ! kill -0 $pid 2>/dev/null; then echo "make run died"; tail -20 /tmp/fresh-run-$1.log; return 1; fi; done
  end=$(date +%s.%N)
  echo "$1: $(echo "$end - $start" | bc) s"
  kill -TERM -- -$pid; sleep 0.5; kill -TERM -- -$pid 2>/dev/null
  while kill -0 $pid 2>/dev/null; do sleep 0.5; done
}
measure first && measure restart
git -C /tmp/fresh log --oneline -1
