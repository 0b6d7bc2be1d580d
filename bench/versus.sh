#!/usr/bin/env bash
# Two builds of sockctl side by side in one run: each bench script runs with the baseline
# binary, then with the new one, ROUNDS times, interleaved (old, new, old, new …), so both meet
# the same machine; absolute figures on a shared machine swing by 2x between runs, a same-run
# comparison does not. Prints each table row of the baseline and of the new binary with the
# ratio new/old of every figure in it.
# Usage: bench/versus.sh BASELINE NEW [ROUNDS] [SCRIPTS]   (SCRIPTS default: "bulk loadtest correlate proxy http")
# Traffic: 127.0.0.1 only, as each script's own.
set -euo pipefail
OLD=$(realpath "${1:?usage: bench/versus.sh BASELINE NEW [ROUNDS] [SCRIPTS]}")
NEW=$(realpath "${2:?usage: bench/versus.sh BASELINE NEW [ROUNDS] [SCRIPTS]}")
ROUNDS=${3:-1}
SCRIPTS=${4:-bulk loadtest correlate proxy http}
HERE=$(dirname "$0")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
echo "baseline: $OLD ($("$OLD" --version 2>/dev/null || echo '?'))"
FAILED=0
echo "new:      $NEW ($("$NEW" --version 2>/dev/null || echo '?'))"
for script in $SCRIPTS; do
    for round in $(seq 1 "$ROUNDS"); do
        for side in old new; do
            bin=$OLD; [ "$side" = new ] && bin=$NEW
            echo "-- $script, round $round, $side" >&2
            "$HERE/$script.sh" "$bin" > "$WORK/$script-$round-$side.txt" 2>"$WORK/$script-$round-$side.err" || { echo "$script with the $side binary failed (exit $?):" >&2; tail -n 5 "$WORK/$script-$round-$side.err" >&2; FAILED=1; }
        done
        echo
        echo "==== $script, round $round"
        python3 "$HERE/versus.py" "$WORK/$script-$round-old.txt" "$WORK/$script-$round-new.txt"
    done
done
exit "$FAILED"
