#!/usr/bin/env bash
# Runs the test suite RUNS times while a CPU hog keeps both cores busy, as `make soak` asks.
# Usage: scripts/soak.sh [runs]   (the tests must be built: `make soak` builds them)
# The hog is `stress-ng --cpu 2` (one worker per core of this 2-core machine, whatever
# `nproc` says), started here and stopped by its PID at the end. Each run is a plain
# `swift test --skip-build`; its log goes to build/soak/run-N.log. Prints one line per run
# (status, wall time) and a summary (passes, failures, median and longest run).
set -uo pipefail
RUNS=${1:-20}
cd "$(dirname "$0")/.."
mkdir -p build/soak
command -v stress-ng >/dev/null || { echo "stress-ng is not installed (make soak installs it)" >&2; exit 1; }
stress-ng --cpu 2 --quiet &
HOG=$!
trap 'kill "$HOG" 2>/dev/null; wait "$HOG" 2>/dev/null' EXIT
passed=0
failed=0
times=()
for run in $(seq 1 "$RUNS"); do
    log=build/soak/run-$run.log
    start=$(date +%s.%N)
    swift test --skip-build >"$log" 2>&1
    status=$?
    end=$(date +%s.%N)
    seconds=$(echo "$end - $start" | bc)
    times+=("$seconds")
    summary=$(grep -E "^.*Test run with [0-9]+ tests" "$log" | tail -1 | sed 's/^[^T]*//')
    if [ "$status" -eq 0 ]; then
        passed=$((passed + 1))
        printf 'run %2d: pass  %7.1f s  %s\n' "$run" "$seconds" "$summary"
    else
        failed=$((failed + 1))
        printf 'run %2d: FAIL  %7.1f s  %s (log: %s)\n' "$run" "$seconds" "$summary" "$log"
        grep -E "✘ Test .* recorded an issue" "$log" | head -5 | sed 's/^/        /'
    fi
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
median=$(echo "$sorted" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')
longest=$(echo "$sorted" | tail -1)
printf '\nsoak: %d of %d runs passed under stress-ng --cpu 2; wall time median %.1f s, longest %.1f s\n' "$passed" "$RUNS" "$median" "$longest"
[ "$failed" -eq 0 ]
