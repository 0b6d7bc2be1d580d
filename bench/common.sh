# Shared by the bench scripts (sourced): a work directory, free loopback ports and waiting for a
# listener.

# Sets WORK (a temporary directory; kept and named when KEEP_WORK is set) and PIDS (append each
# process started); on exit every PID in PIDS is stopped and WORK removed.
start_work() {
    WORK=$(mktemp -d)
    [ -n "${KEEP_WORK:-}" ] && echo "work dir: $WORK"
    PIDS=()
    trap stop_work EXIT
}
stop_work() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}

# A port below the ephemeral range (32768+) that no socket uses right now.
port() {
    local p
    while :; do
        p=$((20000 + RANDOM % 10000))
        [ -z "$(ss -tanH "sport = :$p or dport = :$p")" ] && { echo "$p"; return; }
    done
}

# The first port of a block of COUNT ports from 20000 up that no socket uses right now.
free_block() {
    local count=$1 base
    for base in $(seq 20000 1000 29000); do
        if [ -z "$(ss -tanH "sport >= :$base and sport < :$((base + count))")" ]; then echo "$base"; return; fi
    done
    echo "no block of $count free ports" >&2; return 1
}

# Waits (up to 6 s) until something listens on TCP port $1.
wait_listen() {
    for _ in $(seq 1 300); do
        ss -ltnH "sport = :$1" | grep -q . && return 0
        sleep 0.02
    done
    echo "nothing listens on $1" >&2; return 1
}
