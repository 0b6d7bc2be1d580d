# Shared by the scripts that record sessions of a real server on loopback
# (make-h2c-sessions.sh, make-http11-sessions.sh); sourced, with OUT (where the captures go),
# WORK (a scratch directory) and PORT (the server's port) set by the caller.

# wait_port PORT: until something listens on 127.0.0.1:PORT (at most 5 s).
wait_port() {
    for _ in $(seq 1 50); do
        nc -z 127.0.0.1 "$1" 2>/dev/null && break
        sleep 0.1
    done
}

# record NAME COMMAND...: the command's traffic on port $PORT, captured whole into $OUT/NAME.pcap.
record() {
    local name=$1
    shift
    tcpdump -i lo --immediate-mode -U -s 0 -w "$OUT/$name.pcap" "tcp port $PORT" 2> "$WORK/tcpdump.log" &
    local dump=$!
    for _ in $(seq 1 50); do
        grep -q "listening on" "$WORK/tcpdump.log" 2>/dev/null && break
        sleep 0.1
    done
    "$@" > "$WORK/$name.client.log" 2>&1 || { echo "$name: client failed:"; tail -5 "$WORK/$name.client.log"; }
    sleep 0.5
    kill -INT "$dump"
    wait "$dump" || true
}
