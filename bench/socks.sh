#!/usr/bin/env bash
# sockctl proxy socks5:// next to microsocks and dante (danted), all on loopback, in the same run.
# Usage: bench/socks.sh path/to/release/sockctl [MiB] [runs]
# MiB (default 4096) from `sockctl connect --send-only --proxy socks5://…` to `sockctl listen
# --discard`, through each SOCKS5 server in turn (the same client, the same server, only the proxy
# changes); median wall time of RUNS (default 3), MB/s, and the proxy's CPU (user + system, its
# whole process tree: dante works in child processes) in seconds per GiB. The goal: sockctl at
# least 1.5x the throughput of the faster of the two.
# Traffic stays on 127.0.0.1; every process started here is stopped by its PID.
set -euo pipefail
SOCKCTL=$(realpath "${1:?usage: bench/socks.sh path/to/sockctl [MiB] [runs]}")
MIB=${2:-4096}
RUNS=${3:-3}
source "$(dirname "$0")/common.sh"
start_work
for tool in microsocks danted bc; do
    command -v "$tool" >/dev/null || { echo "$tool is not installed (make bench installs it)" >&2; exit 1; }
done
BYTES=$((MIB * 1024 * 1024))
head -c "$BYTES" /dev/zero > "$WORK/payload"

# start_proxy NAME PORT: starts one SOCKS5 server in the background on 127.0.0.1:PORT; sets PROXY.
start_proxy() {
    local name=$1 listen=$2
    case $name in
        "sockctl proxy")
            "$SOCKCTL" proxy "socks5://127.0.0.1:$listen" 2>"$WORK/proxy.err" & ;;
        microsocks)
            microsocks -i 127.0.0.1 -p "$listen" >"$WORK/proxy.err" 2>&1 & ;;
        dante)
            cat > "$WORK/danted.conf" <<CFG
logoutput: stderr
internal: 127.0.0.1 port = $listen
external: 127.0.0.1
clientmethod: none
socksmethod: none
user.unprivileged: nobody
client pass { from: 127.0.0.0/8 to: 0.0.0.0/0 }
socks pass { from: 127.0.0.0/8 to: 127.0.0.1/32 }
socks block { from: 0.0.0.0/0 to: 0.0.0.0/0 log: connect error }
CFG
            danted -f "$WORK/danted.conf" -p "$WORK/danted.pid" -N 1 2>"$WORK/proxy.err" & ;;
    esac
    PROXY=$!
    PIDS+=("$PROXY")
    wait_listen "$listen"
}

stop_proxy() {
    kill "$PROXY" 2>/dev/null || true
    wait "$PROXY" 2>/dev/null || true
}

# CPU seconds (user + system, with reaped children) of process $1 and every process under it.
cpu_tree() {
    local total=0 pid
    for pid in $1 $(descendants "$1"); do
        total=$(echo "$total + $(awk '{print ($14 + $15 + $16 + $17) / 100}' "/proc/$pid/stat" 2>/dev/null || echo 0)" | bc -l)
    done
    echo "$total"
}
descendants() {
    local child
    for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do echo "$child"; descendants "$child"; done
}

PROXIES=("sockctl proxy" "microsocks" "dante")
echo "== SOCKS5 bulk: $MIB MiB through each proxy, median of $RUNS runs; sockctl: $SOCKCTL"
declare -A SECONDS_OF CPU_OF
for name in "${PROXIES[@]}"; do
    times=()
    cpu_total=0
    for _ in $(seq 1 "$RUNS"); do
        server=$(port)
        "$SOCKCTL" listen "127.0.0.1:$server" --discard 2>"$WORK/recv.err" &
        receiver=$!
        PIDS+=("$receiver")
        wait_listen "$server"
        listen=$(port)
        start_proxy "$name" "$listen"
        before=$(cpu_tree "$PROXY")
        start=$(date +%s.%N)
        "$SOCKCTL" connect --send-only --proxy "socks5://127.0.0.1:$listen" "127.0.0.1:$server" < "$WORK/payload" 2>"$WORK/send.err"
        wait "$receiver"
        end=$(date +%s.%N)
        after=$(cpu_tree "$PROXY")
        if ! grep -q "($BYTES bytes in" "$WORK/recv.err"; then
            echo "$name: the receiver did not get all $BYTES bytes" >&2; cat "$WORK/recv.err" "$WORK/send.err" "$WORK/proxy.err" >&2; exit 1
        fi
        cpu_total=$(echo "$cpu_total + $after - $before" | bc -l)
        stop_proxy
        times+=("$(echo "$end - $start" | bc -l)")
    done
    SECONDS_OF[$name]=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")
    CPU_OF[$name]=$(echo "$cpu_total / $RUNS" | bc -l)
done
GIB=$(echo "$BYTES / 1073741824" | bc -l)
printf '%-16s %10s %10s %14s %14s\n' proxy seconds "MB/s" "proxy CPU s" "CPU s/GiB"
for name in "${PROXIES[@]}"; do
    printf '%-16s %10.3f %10.0f %14.2f %14.2f\n' "$name" "${SECONDS_OF[$name]}" \
        "$(echo "$BYTES / 1000000 / ${SECONDS_OF[$name]}" | bc -l)" "${CPU_OF[$name]}" "$(echo "${CPU_OF[$name]} / $GIB" | bc -l)"
done
faster=microsocks
[ "$(echo "${SECONDS_OF[dante]} < ${SECONDS_OF[microsocks]}" | bc -l)" = 1 ] && faster=dante
ratio=$(echo "${SECONDS_OF[$faster]} / ${SECONDS_OF[sockctl proxy]}" | bc -l)
verdict="not met"; [ "$(echo "$ratio >= 1.5" | bc -l)" = 1 ] && verdict=met
printf 'sockctl proxy socks5://: %.2fx microsocks, %.2fx dante (MB/s); %.2fx the faster (%s): goal >= 1.5x %s\n' \
    "$(echo "${SECONDS_OF[microsocks]} / ${SECONDS_OF[sockctl proxy]}" | bc -l)" \
    "$(echo "${SECONDS_OF[dante]} / ${SECONDS_OF[sockctl proxy]}" | bc -l)" "$ratio" "$faster" "$verdict"
