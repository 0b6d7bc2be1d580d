#!/usr/bin/env bash
# Send-only streams: bytes per second a neutral echo server serves when `sockctl loadtest` (no
# framing: it writes and never waits) loads it with a 63-byte message over 100 connections, on
# each I/O path, next to tcpkali on the same server in the same run.
# Usage: bench/sendonly.sh path/to/release/sockctl [seconds-per-run] [rounds]   (5 s, 3 rounds)
#        TCPKALI=path/to/tcpkali bench/sendonly.sh ...   adds tcpkali's row and the verdict.
#
# The server is bench/echo-server.c (plain epoll, a thread per core, SO_REUSEPORT), built here
# with cc: it echoes what it reads and counts it, so it measures every client the same way. A
# fresh server per run; "served" is the bytes it read over the time from its first read to its
# last (the client's sending window, whatever the client does before or after). Each round runs,
# one after the other (interleaved, so the clients meet the same machine):
#  - sockctl loadtest 127.0.0.1:PORT -c 100 --connect-rate 0 --duration S --message M --io events
#  - the same with --io threads
#  - tcpkali -c 100 --connect-rate 100000 -T S -e -m M 127.0.0.1:PORT   (when TCPKALI is given)
# each under /usr/bin/time. Reported per client: the medians over the rounds of served MB/s and
# of client CPU seconds (user + sys); then each sockctl row's served rate over tcpkali's. Goal:
# at least 1.20 on both I/O paths (PASS/FAIL).
#
# tcpkali is not packaged for Debian. Its public source (github.com/satori-com/tcpkali, 1.2.0)
# builds with `apt-get install -y autoconf automake libtool bison flex; autoreconf -i;
# ./configure; make`; with glibc 2.36 src/tcpkali_syslimits.c must first have its
# `#include <sys/sysctl.h>` put under `#ifdef HAVE_SYSCTLBYNAME` (glibc no longer has that header).
# Traffic: 127.0.0.1 only; every run stops by itself after SECONDS; processes stopped by PID.
set -euo pipefail
SOCKCTL=$(realpath -m "${1:?usage: bench/sendonly.sh path/to/sockctl [seconds] [rounds]}")
SECONDS_PER_RUN=${2:-5}
ROUNDS=${3:-3}
CONNECTIONS=100
MESSAGE=$(printf 'x%.0s' $(seq 1 62))'\n'  # 63 bytes: 62 × x and a newline (sockctl's escape)
TCPKALI_MESSAGE=$(printf 'x%.0s' $(seq 1 62))'\n'  # tcpkali reads the same escape
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

for tool in cc /usr/bin/time bc; do
    command -v "$tool" >/dev/null || { echo "$tool is not installed (make bench installs it)" >&2; exit 1; }
done
cc -O2 -pthread -o "$WORK/echo-server" "$(dirname "$0")/echo-server.c"

# median VALUES...: the median of the numbers given (the mean of the middle two for an even count).
median() {
    printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {if (NR == 0) exit; if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

# run NAME COMMAND...: one client run against a fresh server on a free port (PORT in the
# command is replaced); appends served MB/s and client CPU seconds to NAME's lists.
declare -A SERVED CPU FAILED
run() {
    local name=$1; shift
    "$WORK/echo-server" 0 > "$WORK/server.out" &
    local server=$!
    PIDS+=("$server")
    local port=""
    for _ in $(seq 1 300); do
        port=$(sed -n 's/^listening on //p' "$WORK/server.out")
        [ -n "$port" ] && break
        sleep 0.02
    done
    [ -n "$port" ] || { echo "the echo server did not start" >&2; exit 1; }
    local args=("${@//PORT/$port}")
    if ! /usr/bin/time -f '%U %S' -o "$WORK/time" "${args[@]}" > "$WORK/client.out" 2>&1; then
        FAILED[$name]=$(grep -m1 -i 'error' "$WORK/client.out" || tail -n1 "$WORK/client.out")
    fi
    kill -TERM "$server"
    wait "$server" || true
    local bytes window
    bytes=$(sed -n 's/^echoed \([0-9]*\) bytes in.*/\1/p' "$WORK/server.out")
    window=$(sed -n 's/^echoed .* in \([0-9.]*\) s$/\1/p' "$WORK/server.out")
    SERVED[$name]+="$(echo "${bytes:-0} / (${window:-0} + 0.000001) / 1000000" | bc -l) "
    CPU[$name]+="$(awk '{print $1 + $2}' "$WORK/time") "
}

NAMES=("sockctl events" "sockctl threads")
[ -n "${TCPKALI:-}" ] && NAMES+=("tcpkali")
for round in $(seq 1 "$ROUNDS"); do
    run "sockctl events" "$SOCKCTL" loadtest 127.0.0.1:PORT -c $CONNECTIONS --connect-rate 0 \
        --duration "${SECONDS_PER_RUN}s" --message "$MESSAGE" --io events
    run "sockctl threads" "$SOCKCTL" loadtest 127.0.0.1:PORT -c $CONNECTIONS --connect-rate 0 \
        --duration "${SECONDS_PER_RUN}s" --message "$MESSAGE" --io threads
    if [ -n "${TCPKALI:-}" ]; then
        run "tcpkali" "$TCPKALI" -c $CONNECTIONS --connect-rate 100000 -T "${SECONDS_PER_RUN}s" -e \
            -m "$TCPKALI_MESSAGE" 127.0.0.1:PORT
    fi
done

echo "Send-only streams: 63-byte messages, $CONNECTIONS connections, ${SECONDS_PER_RUN} s, median of $ROUNDS rounds, neutral echo server (bench/echo-server.c)"
printf '%-18s %12s %16s\n' "client" "served MB/s" "client CPU s"
declare -A MEDIAN
for name in "${NAMES[@]}"; do
    # shellcheck disable=SC2086
    MEDIAN[$name]=$(median ${SERVED[$name]})
    # shellcheck disable=SC2086
    printf '%-18s %12.1f %16.2f%s\n' "$name" "${MEDIAN[$name]}" "$(median ${CPU[$name]})" \
        "${FAILED[$name]:+   (failed: ${FAILED[$name]})}"
done
if [ -z "${TCPKALI:-}" ]; then
    echo "tcpkali: not given (TCPKALI=path/to/tcpkali adds its row and the verdict)"
    exit 0
fi
for name in "sockctl events" "sockctl threads"; do
    ratio=$(echo "${MEDIAN[$name]} / ${MEDIAN[tcpkali]}" | bc -l)
    verdict=$(echo "$ratio >= 1.2" | bc -l)
    printf '%-18s %.2f× tcpkali (goal ≥ 1.20×): %s\n' "$name" "$ratio" "$([ "$verdict" = 1 ] && echo PASS || echo FAIL)"
done
