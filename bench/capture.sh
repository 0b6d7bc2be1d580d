#!/usr/bin/env bash
# Reading capture files: sockctl against tcpdump on the same 1M-packet pcaps, in the same run.
# Usage: bench/capture.sh path/to/release/sockctl [packets]
# Two pcaps, generated once into $BENCH_CACHE (default ${TMPDIR:-/tmp}/sockctl-bench) and reused
# while their generator is unchanged:
#   transport     bench/make-pcap.py: Ethernet, TCP over IPv4 and IPv6 with timestamps and SACK,
#                 handshakes and closes, UDP, on ports without application decoders;
#                 printed with -n -X (hex + ASCII dumps) and -n (headers only)
#   applications  bench/make-app-pcap.py: mostly DNS and HTTP (and some NTP), right checksums;
#                 printed with -n -v -X (decoded, checksums verified, dumps) and -n -v
# Reports each tool's wall time, CPU seconds (user + sys), CPU µs per packet and the CPU ratio
# sockctl/tcpdump (lower is faster; the target for -n -v -X on the applications pcap is 0.50x at
# most); then a second pass with TZ=UTC compares the two outputs byte for byte (sha256).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SOCKCTL=$(realpath -m "${1:?usage: bench/capture.sh path/to/sockctl [packets]}")
PACKETS=${2:-1000000}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

CACHE=${BENCH_CACHE:-${TMPDIR:-/tmp}/sockctl-bench}
mkdir -p "$CACHE"
# pcap NAME GENERATOR: the path of the cached pcap, generated when missing.
pcap() {
    local name=$1 generator=$2 gen path
    gen=$(sha256sum "$generator" | cut -c1-12)
    path=$CACHE/$name-$PACKETS-$gen.pcap
    if [ ! -s "$path" ]; then
        rm -f "$CACHE/$name-$PACKETS"-*.pcap
        echo "generating $PACKETS packets into $path" >&2
        python3 "$generator" "$path.part" "$PACKETS"
        mv "$path.part" "$path"
    fi
    echo "$path"
}
declare -A PCAP
PCAP[transport]=$(pcap capture "$HERE/make-pcap.py")
PCAP[applications]=$(pcap capture-apps "$HERE/make-app-pcap.py")

# measure NAME COMMAND...: runs COMMAND with stdout to /dev/null; sets WALL[NAME], CPU[NAME]
# (user + sys seconds), STATUS[NAME]; stderr is kept in $WORK/NAME.err.
declare -A WALL CPU STATUS
measure() {
    local name=$1; shift
    local status=0
    /usr/bin/time -f "%e %U %S" -o "$WORK/$name.time" "$@" >/dev/null 2>"$WORK/$name.err" || status=$?
    STATUS[$name]=$status
    WALL[$name]=$(awk 'END {print $1}' "$WORK/$name.time")
    CPU[$name]=$(awk 'END {print $2 + $3}' "$WORK/$name.time")
}

# sockctl's flags for tcpdump's: sockctl's default dump is -X, tcpdump's none.
sockctl_flags() {
    case " $* " in *" -X "*|*" -XX "*|*" -x "*|*" -A "*) echo "$*" ;; *) echo "$* --no-dump" ;; esac
}

CASES=("transport|-n -X" "transport|-n" "applications|-n -v -X" "applications|-n -v")
for pcap_name in transport applications; do
    echo "$pcap_name: $(du -h "${PCAP[$pcap_name]}" | cut -f1) pcap, $PACKETS packets"
done
echo "sockctl: $SOCKCTL"
for entry in "${CASES[@]}"; do
    pcap_name=${entry%%|*} flags=${entry#*|}
    # shellcheck disable=SC2086 # flags are split on purpose
    measure "tcpdump $entry" tcpdump $flags -r "${PCAP[$pcap_name]}"
    # shellcheck disable=SC2046
    measure "sockctl $entry" "$SOCKCTL" capture -r "${PCAP[$pcap_name]}" $(sockctl_flags $flags)
done

printf '\n%-13s %-10s %-8s %8s %8s %11s %16s\n' pcap flags tool "wall s" "CPU s" "CPU µs/pkt" "sockctl/tcpdump"
for entry in "${CASES[@]}"; do
    pcap_name=${entry%%|*} flags=${entry#*|}
    t="tcpdump $entry" s="sockctl $entry"
    printf '%-13s %-10s %-8s %8.2f %8.2f %11.2f %16s\n' "$pcap_name" "$flags" tcpdump "${WALL[$t]}" "${CPU[$t]}" \
        "$(echo "${CPU[$t]} * 1000000 / $PACKETS" | bc -l)" ""
    if [ "${STATUS[$s]}" = 0 ]; then
        printf '%-13s %-10s %-8s %8.2f %8.2f %11.2f %15.2fx\n' "$pcap_name" "$flags" sockctl "${WALL[$s]}" "${CPU[$s]}" \
            "$(echo "${CPU[$s]} * 1000000 / $PACKETS" | bc -l)" \
            "$(echo "${CPU[$s]} / ${CPU[$t]}" | bc -l)"
    else
        msg=$(head -c 300 "$WORK/$s.err" | head -n 2 | tr '\n' ' ')
        printf '%-13s %-10s %-8s %s\n' "$pcap_name" "$flags" sockctl "FAILED (exit ${STATUS[$s]}): ${msg:-no message}"
    fi
done

echo
failed=0
for entry in "${CASES[@]}"; do
    pcap_name=${entry%%|*} flags=${entry#*|}
    if [ "${STATUS[sockctl $entry]}" != 0 ]; then
        echo "outputs identical ($pcap_name, $flags, TZ=UTC): no (sockctl failed)"
        failed=1
        continue
    fi
    # shellcheck disable=SC2086
    t=$(TZ=UTC tcpdump $flags -r "${PCAP[$pcap_name]}" 2>/dev/null | sha256sum)
    # shellcheck disable=SC2046
    s=$(TZ=UTC "$SOCKCTL" capture -r "${PCAP[$pcap_name]}" $(sockctl_flags $flags) 2>/dev/null | sha256sum) || true
    same=no
    [ "$t" = "$s" ] && same=yes
    echo "outputs identical ($pcap_name, $flags, TZ=UTC): $same"
    [ "$same" = yes ] || failed=1
done
ratio=$(echo "${CPU[sockctl applications|-n -v -X]} / ${CPU[tcpdump applications|-n -v -X]}" | bc -l)
printf '\ntarget: -n -v -X on the applications pcap at most 0.50x of tcpdump'"'"'s CPU: %.2fx %s\n' "$ratio" \
    "$( [ "$(echo "$ratio <= 0.5" | bc -l)" = 1 ] && echo met || echo MISSED)"
echo "CPU is user + sys of one run each; ratios below 1.00x mean sockctl used less CPU than tcpdump."
exit $failed
