#!/usr/bin/env bash
# Autobahn WebSocket conformance (RFC 6455) through kosoku, with sockctl as the peer under test.
#
#   scripts/autobahn.sh server SOCKCTL OUTDIR [kosoku -i/-x filters...]
#       sockctl listen ws://127.0.0.1:0/ --echo -k  is driven by  kosoku (fuzzing client)
#   scripts/autobahn.sh client SOCKCTL OUTDIR [kosoku -i/-x filters...]
#       kosoku -m fuzzingserver listens; sockctl connects once per case:
#         GET /getCaseCount                       (sockctl connect --recv-only prints the count)
#         GET /runCase?case=N&agent=sockctl       (sockctl connect --echo-messages)
#         GET /updateReports?agent=sockctl        (kosoku writes OUTDIR/index.json and exits)
#
# kosoku comes from the venv made by `make .venv-test/.installed` (VENV overrides it). The
# results are in OUTDIR/index.json; the script prints the verdict counts and exits 1 if any
# case is FAILED (OK, NON-STRICT and INFORMATIONAL pass), 2 on a setup problem.
set -u

mode=${1:-}; sockctl=${2:-}; outdir=${3:-}
shift 3 2>/dev/null || { echo "usage: $0 server|client SOCKCTL OUTDIR [-i CASE]... [-x CASE]..." >&2; exit 2; }
venv=${VENV:-.venv-test}
kosoku="$venv/bin/kosoku"
python="$venv/bin/python"
[ -x "$kosoku" ] || { echo "autobahn: $kosoku not found: run 'make .venv-test/.installed' (pip install kosoku==0.1.0)" >&2; exit 2; }
[ -x "$sockctl" ] || { echo "autobahn: no sockctl binary at $sockctl" >&2; exit 2; }
rm -rf "$outdir"; mkdir -p "$outdir"
log="$outdir/run.log"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done; }
trap cleanup EXIT

# Starts a command in the background with its output read line by line through a FIFO until
# a line matches the sed expression $3; sets $found to what the expression extracts (a port)
# and $started to the command's PID. Waits for that line however long it takes, never for a
# time; if the command ends first, $found stays empty. All its output goes to the log $2.
found=""; started=""
start_and_wait_for() {
    local name=$1 logfile=$2 expression=$3; shift 3
    local fifo="$outdir/$name.fifo" line
    found=""
    mkfifo "$fifo"
    "$@" >"$fifo" 2>&1 &
    started=$!; pids+=("$started")
    exec 3<"$fifo"
    while IFS= read -r line <&3; do
        printf '%s\n' "$line" >>"$logfile"
        found=$(printf '%s\n' "$line" | sed -n "$expression")
        [ -n "$found" ] && break
    done
    cat <&3 >>"$logfile" &
    exec 3<&-
}

case "$mode" in
server)
    start_and_wait_for listen "$outdir/listen.err" 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' \
        "$sockctl" listen ws://127.0.0.1:0/ --echo -k --max-clients 1000
    port=$found; listener=$started
    [ -n "$port" ] || { echo "autobahn: sockctl listen did not start: $(cat "$outdir/listen.err")" >&2; exit 2; }
    "$kosoku" -p 1 "$@" -o "$outdir" "127.0.0.1:$port" >"$log" 2>&1
    status=$?
    kill -INT "$listener" 2>/dev/null; wait "$listener" 2>/dev/null
    ;;
client)
    # kosoku binds port 0 and says which port it got.
    PYTHONUNBUFFERED=1 start_and_wait_for kosoku "$log" 's|.*fuzzingserver listening on ws://127\.0\.0\.1:\([0-9]*\).*|\1|p' \
        "$kosoku" -m fuzzingserver "$@" -o "$outdir" "127.0.0.1:0"
    port=$found; server=$started
    [ -n "$port" ] || { echo "autobahn: kosoku fuzzingserver did not start: $(cat "$log")" >&2; exit 2; }
    base="ws://127.0.0.1:$port"
    # kosoku answers getCaseCount with the count and a close frame and hangs up at once: all
    # of it can arrive with the upgrade answer, which sockctl reads whole.
    count=$("$sockctl" connect "$base/getCaseCount" --recv-only 2>>"$outdir/client.err" | tr -dc '0-9')
    [ -n "$count" ] || { echo "autobahn: kosoku fuzzingserver did not answer on $base: $(cat "$log")" >&2; exit 2; }
    for case in $(seq 1 "$count"); do
        # The exit status is the case's business (a case may make the client fail on purpose).
        "$sockctl" connect "$base/runCase?case=$case&agent=sockctl" --echo-messages \
            >/dev/null 2>>"$outdir/client.err"
    done
    "$sockctl" connect "$base/updateReports?agent=sockctl" --recv-only >/dev/null 2>>"$outdir/client.err"
    wait "$server"; status=$?
    ;;
*)
    echo "usage: $0 server|client SOCKCTL OUTDIR [-i CASE]... [-x CASE]..." >&2; exit 2 ;;
esac

[ -f "$outdir/index.json" ] || { echo "autobahn: no $outdir/index.json; kosoku said: $(tail -5 "$log")" >&2; exit 2; }
"$python" - "$outdir/index.json" "$mode" "${count:-}" <<'EOF'
import json, sys, collections
index = json.load(open(sys.argv[1]))
counts, failed = collections.Counter(), []
expected = int(sys.argv[3]) if sys.argv[3] else None
reported = sum(len(cases) for cases in index.values())
if expected is not None and reported != expected:
    failed.append(f"only {reported} of {expected} cases reported (see client.err)")
for agent, cases in index.items():
    for case, result in sorted(cases.items(), key=lambda kv: [int(p) for p in kv[0].split(".")]):
        counts[result["behavior"]] += 1
        if result["behavior"] not in ("OK", "NON-STRICT", "INFORMATIONAL") or result["behaviorClose"] not in ("OK", "NON-STRICT", "INFORMATIONAL"):
            failed.append(f"{case} {result['behavior']}/{result['behaviorClose']}")
print(f"autobahn {sys.argv[2]}: {sum(counts.values())} cases: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
for line in failed: print("  FAILED " + line)
sys.exit(1 if failed else 0)
EOF
verdict=$?
[ "$verdict" -eq 0 ] && [ "$status" -ne 0 ] && { echo "autobahn: kosoku exited $status: $(tail -5 "$log")" >&2; exit 1; }
exit $verdict
