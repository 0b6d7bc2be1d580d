#!/bin/sh
# Re-records the golden outputs in Tests/Goldens from the real tcpdump 4.99.3.
#
# For every line `name capture expected flags...` of Goldens/TESTLIST this runs
#     TZ=UTC tcpdump -r capture flags > expected   (stdout only; stderr and the exit status
#                                                   are not part of the golden)
# after rewriting the crafted captures with scripts/captures/make-crafted.py (deterministic).
# The live captures are not remade here (scripts/captures/make-live.sh, as root, does that).
# Exits non-zero if tcpdump is not 4.99.3, if a capture is missing, or if tcpdump was killed.
# Expected outputs are never edited by hand: change a capture or TESTLIST and run this.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/Tests/Goldens"
version=$(tcpdump --version 2>&1 | head -n 1)
if [ "$version" != "tcpdump version 4.99.3" ]; then
    echo "regenerate-goldens.sh: need tcpdump version 4.99.3, found: $version" >&2
    exit 1
fi
python3 "$root/scripts/captures/make-crafted.py" "$dir"

list=$(mktemp)
trap 'rm -f "$list"' EXIT
grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$dir/TESTLIST" >"$list"
count=0
# shellcheck disable=SC2086 # flags are split on purpose
while read -r name capture expected flags; do
    if [ ! -f "$dir/$capture" ]; then
        echo "regenerate-goldens.sh: $name: missing capture $capture" >&2
        exit 1
    fi
    status=0
    (cd "$dir" && TZ=UTC tcpdump -r "$capture" $flags >"$expected" 2>/dev/null) || status=$?
    if [ "$status" -gt 1 ]; then
        echo "regenerate-goldens.sh: $name: tcpdump exited with $status" >&2
        exit 1
    fi
    count=$((count + 1))
done <"$list"
echo "regenerate-goldens.sh: $count goldens regenerated" >&2

# Outputs no TESTLIST line names any more.
for file in "$dir"/*.out; do
    base=$(basename "$file")
    grep -q "[[:space:]]$base[[:space:]]" "$dir/TESTLIST" || echo "regenerate-goldens.sh: stale $base (not in TESTLIST)" >&2
done
