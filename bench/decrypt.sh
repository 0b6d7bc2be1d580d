#!/usr/bin/env bash
# TLS decryption: `sockctl capture -r F --keylog K --follow` against
# `tshark -r F -o tls.keylog_file:K -q -z follow,tls,raw,N` (every stream) on the same file,
# in the same run. Reports each tool's wall time, CPU seconds (user + sys) and the CPU ratio
# sockctl/tshark (lower is faster; the goal is 0.25x at most).
# Usage: bench/decrypt.sh path/to/release/sockctl [megabytes]   (default 64 MB per connection)
# The capture is recorded once into $BENCH_CACHE (default ${TMPDIR:-/tmp}/sockctl-bench), on
# loopback by tcpdump (root): curl (SSLKEYLOGFILE) downloading a file from openssl s_server
# -WWW, once over TLS 1.3 (AES-128-GCM) and once over TLS 1.2 (ECDHE-RSA ChaCha20-Poly1305).
# Traffic: 127.0.0.1 only.
set -euo pipefail
SOCKCTL=$(realpath -m "${1:?usage: bench/decrypt.sh path/to/sockctl [megabytes]}")
MEGABYTES=${2:-64}
WORK=$(mktemp -d)
PIDS=()
trap 'for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$WORK"' EXIT
CACHE=${BENCH_CACHE:-${TMPDIR:-/tmp}/sockctl-bench}
mkdir -p "$CACHE"
PCAP=$CACHE/decrypt-$MEGABYTES.pcap
KEYLOG=$CACHE/decrypt-$MEGABYTES.keylog

wait_for() {
    for _ in $(seq 100); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    echo "timed out waiting for '$2' in $1" >&2; return 1
}

if [ ! -s "$PCAP" ] || [ ! -s "$KEYLOG" ]; then
    echo "recording $MEGABYTES MB over TLS 1.3 and TLS 1.2 into $PCAP" >&2
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORK/key.pem" -out "$WORK/cert.pem" -days 2 -subj "/CN=127.0.0.1" 2>/dev/null
    mkdir -p "$WORK/www"
    head -c "$((MEGABYTES * 1000000))" /dev/urandom > "$WORK/www/big.bin"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    rm -f "$KEYLOG"
    tcpdump -i lo -U -s 0 -B 65536 -w "$PCAP.part" "tcp port $port" 2>"$WORK/tcpdump.err" &
    capture=$!; PIDS+=("$capture")
    wait_for "$WORK/tcpdump.err" "listening on"
    for version in tls1_3 tls1_2; do
        rm -f "$WORK/server.out"
        (cd "$WORK/www" && exec openssl s_server -accept "$port" -cert "$WORK/cert.pem" -key "$WORK/key.pem" -WWW -naccept 1 \
            "-$version" -cipher ECDHE-RSA-CHACHA20-POLY1305 -ciphersuites TLS_AES_128_GCM_SHA256) >"$WORK/server.out" 2>&1 &
        server=$!; PIDS+=("$server")
        wait_for "$WORK/server.out" "ACCEPT"
        SSLKEYLOGFILE=$KEYLOG timeout 120 curl -sk "https://127.0.0.1:$port/big.bin" -o /dev/null
        wait "$server" 2>/dev/null || true
    done
    sleep 0.5
    kill -INT "$capture"; wait "$capture" 2>/dev/null || true
    grep -h "dropped by kernel" "$WORK/tcpdump.err" >&2 || true
    mv "$PCAP.part" "$PCAP"
fi

# measure NAME COMMAND...: CPU (user + sys) and wall seconds, stdout to /dev/null.
declare -A WALL CPU
measure() {
    local name=$1; shift
    /usr/bin/time -f "%e %U %S" -o "$WORK/$name.time" "$@" >/dev/null 2>"$WORK/$name.err" || { echo "$name failed:" >&2; tail -n 5 "$WORK/$name.err" >&2; exit 1; }
    WALL[$name]=$(awk 'END {print $1}' "$WORK/$name.time")
    CPU[$name]=$(awk 'END {print $2 + $3}' "$WORK/$name.time")
}
tshark_follow() {
    local arguments=()
    for stream in $(tshark -r "$PCAP" -T fields -e tcp.stream 2>/dev/null | sort -un); do arguments+=(-z "follow,tls,raw,$stream"); done
    tshark -r "$PCAP" -o "tls.keylog_file:$KEYLOG" -q "${arguments[@]}"
}
measure sockctl "$SOCKCTL" capture -r "$PCAP" --keylog "$KEYLOG" --follow
export PCAP KEYLOG
export -f tshark_follow
measure tshark bash -c tshark_follow
echo "decrypt: $(du -h "$PCAP" | cut -f1) pcap, two TLS connections of $MEGABYTES MB"
printf '%-8s %8s %8s\n' tool wall_s cpu_s
printf '%-8s %8s %8s\n' sockctl "${WALL[sockctl]}" "${CPU[sockctl]}" tshark "${WALL[tshark]}" "${CPU[tshark]}"
ratio=$(awk -v a="${CPU[sockctl]}" -v b="${CPU[tshark]}" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }')
echo "decryption CPU sockctl/tshark: ${ratio}x (goal: 0.25x at most)"
