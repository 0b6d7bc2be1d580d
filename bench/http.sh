#!/usr/bin/env bash
# HTTP/1.1 load: requests per second and client CPU per request for `sockctl loadtest http://`
# next to wrk and h2load --h1, against the same nginx in the same run; then the open loop through
# `sockctl listen http:// --delay 10ms`.
# Usage: bench/http.sh path/to/release/sockctl [seconds-per-run] [rounds]   (10 s, 3 rounds)
#
# One nginx (worker_processes auto, keepalive_requests 1000000, access_log off) serves a 256-byte
# static file to every row of the run. Each round runs, one after the other (interleaved, so the
# three clients meet the same machine), with 100 keep-alive connections for SECONDS:
#  - wrk -t2 -c100 -d SECONDS
#  - h2load --h1 -t2 -c100 -D SECONDS
#  - sockctl loadtest http://…/file -c 100 --duration SECONDS (closed loop, one request in flight
#    per connection, as the other two)
# each under /usr/bin/time. Reported per client: the median over the rounds of requests/s and
# of client CPU (user + sys) per request, in microseconds; then sockctl's requests/s over wrk's
# (the goal: at least 1.00). On 2 cores the client's CPU competes with nginx's, so the CPU per
# request is the figure beside the rate. A client that fails prints "n/a" and its error line.
#
# Open loop: `sockctl loadtest http://… --rate 2000 -c 50` against `sockctl listen http://
# --respond FILE --delay 10ms` (a 3-byte body); its median (corrected) latency must lie within 10.0 to 12.0 ms: PASS or FAIL.
# Traffic: 127.0.0.1 only; every run stops by itself after SECONDS; processes stopped by PID.
set -euo pipefail
SOCKCTL=$(realpath -m "${1:?usage: bench/http.sh path/to/sockctl [seconds] [rounds]}")
SECONDS_PER_RUN=${2:-10}
ROUNDS=${3:-3}
CONNECTIONS=100
WORK=$(mktemp -d)
chmod 755 "$WORK" # nginx's workers run as nobody when it is started by root
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

for tool in nginx wrk h2load /usr/bin/time bc; do
    command -v "$tool" >/dev/null || { echo "$tool is not installed (make bench installs it)" >&2; exit 1; }
done

# port, wait_listen
source "$(dirname "$0")/common.sh"

# --- nginx ----------------------------------------------------------------------------------

mkdir -p "$WORK/html" "$WORK/temp"
head -c 256 /dev/zero | tr '\0' x > "$WORK/html/file"
chmod 755 "$WORK/html" && chmod 644 "$WORK/html/file"

# nginx_config PORT: the server's nginx.conf, every path inside $WORK.
nginx_config() {
    cat <<EOF
daemon off;
master_process on;
worker_processes auto;
pid $WORK/nginx.pid;
lock_file $WORK/nginx.lock;
error_log stderr notice;
events { worker_connections 4096; }
http {
    access_log off;
    default_type application/octet-stream;
    sendfile on;
    keepalive_requests 1000000;
    client_body_temp_path $WORK/temp/client_body;
    proxy_temp_path $WORK/temp/proxy;
    fastcgi_temp_path $WORK/temp/fastcgi;
    uwsgi_temp_path $WORK/temp/uwsgi;
    scgi_temp_path $WORK/temp/scgi;
    server {
        listen 127.0.0.1:$1;
        root $WORK/html;
    }
}
EOF
}

# Starts nginx on a free port (another one, up to 5 times, when its bind() fails): sets
# NGINX_PORT and NGINX_PID. Ready once it says it started its workers (it listens before that).
start_nginx() {
    local attempt
    for attempt in 1 2 3 4 5; do
        NGINX_PORT=$(port)
        nginx_config "$NGINX_PORT" > "$WORK/nginx.conf"
        nginx -p "$WORK" -e stderr -c "$WORK/nginx.conf" 2> "$WORK/nginx.log" &
        NGINX_PID=$!
        PIDS+=("$NGINX_PID")
        for _ in $(seq 1 500); do
            grep -qs "start worker process " "$WORK/nginx.log" && return 0
            kill -0 "$NGINX_PID" 2>/dev/null || break
            sleep 0.02
        done
        kill -KILL "$NGINX_PID" 2>/dev/null || true
        wait "$NGINX_PID" 2>/dev/null || true
        grep -qs "bind() to .* failed" "$WORK/nginx.log" || break
    done
    echo "nginx did not start:" >&2
    cat "$WORK/nginx.log" >&2
    exit 1
}

# Stops nginx: SIGQUIT (graceful) to its PID, then waits for it and its workers.
stop_nginx() {
    kill -QUIT "$NGINX_PID" 2>/dev/null || true
    wait "$NGINX_PID" 2>/dev/null || true
}

# --- one run per client ---------------------------------------------------------------------

# cpu FILE: user + sys seconds from /usr/bin/time -f "%U %S" (its last line).
cpu() { awk 'END {print $1 + $2}' "$1"; }

# json FILE PATH...: a figure of a loadtest --json report, "" when missing.
json() {
    python3 - "$@" <<'PY' 2>/dev/null || true
import json, sys
value = json.load(open(sys.argv[1]))
for key in sys.argv[2:]:
    value = value[key]
print(value)
PY
}

# first_error FILE: the tool's one-line error: its "error:" line, else its summary's errors line
# (sockctl), else its last line.
first_error() {
    local line
    line=$(grep -m1 "error:" "$1" 2>/dev/null || true)
    [ -n "$line" ] || line=$(grep -m1 "^errors  *[^ n]" "$1" 2>/dev/null | tr -s ' ' || true)
    [ -n "$line" ] || line=$(grep -v '^\s*$' "$1" 2>/dev/null | tail -n 1 || true)
    echo "${line:-no output}" | cut -c1-160
}

declare -A RATE CPU_US ERROR

# record CLIENT ROUND REQUESTS SECONDS TIMEFILE: requests/s and CPU µs per request of one run.
record() {
    local client=$1 round=$2 requests=$3 seconds=$4 time=$5
    if [ -z "$requests" ] || [ "$(echo "$requests > 0 && $seconds > 0" | bc -l)" != 1 ]; then
        RATE[$client-$round]=""
        return
    fi
    RATE[$client-$round]=$(echo "$requests / $seconds" | bc -l)
    CPU_US[$client-$round]=$(echo "$(cpu "$time") * 1000000 / $requests" | bc -l)
}

URL_PATH=/file

run_wrk() {
    local round=$1 out=$WORK/wrk-$round.log
    /usr/bin/time -f "%U %S" -o "$WORK/wrk-$round.time" \
        wrk -t2 -c$CONNECTIONS -d"${SECONDS_PER_RUN}s" "http://127.0.0.1:$NGINX_PORT$URL_PATH" > "$out" 2>&1 || true
    # "12345 requests in 10.00s, …"
    local requests seconds
    requests=$(sed -n 's/^ *\([0-9]*\) requests in \([0-9.]*\)\(m\?s\).*/\1/p' "$out")
    seconds=$(sed -n 's/^ *[0-9]* requests in \([0-9.]*\)\(m\?s\).*/\1 \2/p' "$out" | awk '{print ($2 == "ms") ? $1 / 1000 : $1}')
    record wrk "$round" "$requests" "${seconds:-0}" "$WORK/wrk-$round.time"
    [ -n "${RATE[wrk-$round]}" ] || ERROR[wrk]=$(first_error "$out")
    if grep -q "Non-2xx\|Socket errors" "$out"; then ERROR[wrk-warning]=$(grep -m1 "Non-2xx\|Socket errors" "$out" | sed 's/^ *//'); fi
}

run_h2load() {
    local round=$1 out=$WORK/h2load-$round.log
    /usr/bin/time -f "%U %S" -o "$WORK/h2load-$round.time" \
        h2load --h1 -t2 -c$CONNECTIONS -D "$SECONDS_PER_RUN" "http://127.0.0.1:$NGINX_PORT$URL_PATH" > "$out" 2>&1 || true
    # "finished in 10.00s, 12345.60 req/s, …" and "requests: N total, N started, N done, N succeeded, …"
    local succeeded seconds
    succeeded=$(sed -n 's/^requests: .* \([0-9]*\) succeeded.*/\1/p' "$out")
    seconds=$(sed -n 's/^finished in \([0-9.]*\)\(m\?s\),.*/\1 \2/p' "$out" | awk '{print ($2 == "ms") ? $1 / 1000 : $1}')
    record h2load "$round" "$succeeded" "${seconds:-0}" "$WORK/h2load-$round.time"
    [ -n "${RATE[h2load-$round]}" ] || ERROR[h2load]=$(first_error "$out")
}

run_sockctl() {
    local round=$1 out=$WORK/sockctl-$round.log report=$WORK/sockctl-$round.json
    rm -f "$report"
    /usr/bin/time -f "%U %S" -o "$WORK/sockctl-$round.time" \
        "$SOCKCTL" loadtest "http://127.0.0.1:$NGINX_PORT$URL_PATH" -c $CONNECTIONS --duration "${SECONDS_PER_RUN}s" \
        --json "$report" > "$out" 2>&1 || true
    local received seconds
    received=$(json "$report" messages received)
    seconds=$(json "$report" elapsed_seconds)
    record sockctl "$round" "$received" "${seconds:-0}" "$WORK/sockctl-$round.time"
    [ -n "${RATE[sockctl-$round]}" ] || ERROR[sockctl]=$(first_error "$out")
}

# median VALUES...: the median of the numbers given (the mean of the middle two for an even count).
median() {
    printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {if (NR == 0) exit; if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

# medians CLIENT: sets MEDIAN_RATE and MEDIAN_CPU over the rounds it completed ("" if none).
medians() {
    local client=$1 round rates=() cpus=()
    for round in $(seq 1 "$ROUNDS"); do
        if [ -n "${RATE[$client-$round]:-}" ]; then
            rates+=("${RATE[$client-$round]}")
            cpus+=("${CPU_US[$client-$round]}")
        fi
    done
    MEDIAN_RATE=""
    MEDIAN_CPU=""
    [ ${#rates[@]} -gt 0 ] || return 0
    MEDIAN_RATE=$(median "${rates[@]}")
    MEDIAN_CPU=$(median "${cpus[@]}")
}

start_nginx
for round in $(seq 1 "$ROUNDS"); do
    echo "-- round $round of $ROUNDS: wrk, h2load, sockctl (${SECONDS_PER_RUN}s each)" >&2
    run_wrk "$round"
    run_h2load "$round"
    run_sockctl "$round"
done
stop_nginx

echo "HTTP/1.1 keep-alive GET of a 256-byte file from nginx (worker_processes auto, $(nproc) cores), $CONNECTIONS connections,"
echo "${SECONDS_PER_RUN}s per run, median of $ROUNDS interleaved rounds; client CPU = user + sys of the client process"
printf '%-34s %14s %22s\n' client "requests/s" "client CPU µs/request"
declare -A MEDIAN
for client in wrk h2load sockctl; do
    case $client in
        wrk) label="wrk -t2 -c$CONNECTIONS" ;;
        h2load) label="h2load --h1 -t2 -c$CONNECTIONS" ;;
        sockctl) label="sockctl loadtest -c $CONNECTIONS" ;;
    esac
    medians "$client"
    MEDIAN[$client]=$MEDIAN_RATE
    if [ -n "$MEDIAN_RATE" ]; then
        printf '%-34s %14.0f %22.2f\n' "$label" "$MEDIAN_RATE" "$MEDIAN_CPU"
    else
        printf '%-34s %14s %22s  %s\n' "$label" n/a n/a "${ERROR[$client]:-}"
    fi
done
[ -z "${ERROR[wrk-warning]:-}" ] || echo "(wrk: ${ERROR[wrk-warning]})"
if [ -n "${MEDIAN[sockctl]}" ] && [ -n "${MEDIAN[wrk]}" ]; then
    printf 'sockctl/wrk: %.2fx (goal >= 1.00)\n' "$(echo "${MEDIAN[sockctl]} / ${MEDIAN[wrk]}" | bc -l)"
else
    echo "sockctl/wrk: n/a (goal >= 1.00)"
fi

# --- open loop through sockctl listen http:// --delay 10ms -----------------------------------

echo
echo "Open loop: sockctl loadtest --rate 2000 -c 50 for ${SECONDS_PER_RUN}s against sockctl listen http:// --respond FILE --delay 10ms"
LISTEN_PORT=$(port)
echo ok > "$WORK/ok.txt"
"$SOCKCTL" listen "http://127.0.0.1:$LISTEN_PORT" --respond "$WORK/ok.txt" --delay 10ms -k --max-clients 100 -q > /dev/null 2> "$WORK/listen.log" &
LISTENER=$!
PIDS+=("$LISTENER")
if ! wait_listen "$LISTEN_PORT" 2>/dev/null; then
    echo "p50: n/a  $(first_error "$WORK/listen.log")"
else
    "$SOCKCTL" loadtest "http://127.0.0.1:$LISTEN_PORT/" --rate 2000 -c 50 --duration "${SECONDS_PER_RUN}s" \
        --json "$WORK/open.json" > "$WORK/open.log" 2>&1 || true
    p50_us=$(json "$WORK/open.json" latency corrected p50)
    answered=$(json "$WORK/open.json" messages received)
    if [ -n "$p50_us" ] && [ "${answered:-0}" != 0 ]; then
        p50=$(echo "$p50_us / 1000" | bc -l)
        verdict=FAIL
        [ "$(echo "$p50 >= 10.0 && $p50 <= 12.0" | bc -l)" = 1 ] && verdict=PASS
        printf 'p50: %.2f ms (corrected; goal 10.0 to 12.0 ms): %s\n' "$p50" "$verdict"
    elif [ -n "$answered" ]; then
        echo "p50: n/a  no responses received"
    else
        echo "p50: n/a  $(first_error "$WORK/open.log")"
    fi
fi
kill -INT "$LISTENER" 2>/dev/null || true
wait "$LISTENER" 2>/dev/null || true
