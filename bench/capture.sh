#!/usr/bin/env bash
# Reading a capture file: sockctl against tcpdump on the same 1M-packet pcap, in the same run.
# Usage: bench/capture.sh path/to/release/sockctl [packets]
# The pcap (bench/make-pcap.py: Ethernet, TCP over IPv4 and IPv6 with timestamps and SACK,
# handshakes and closes, UDP) is generated once into $BENCH_CACHE (default
# ${TMPDIR:-/tmp}/sockctl-bench) and reused while the generator is unchanged.
# Reports, for `-n -X` (hex + ASCII dumps) and `-n` (headers only), each tool's wall time, CPU
# seconds (user + sys), CPU µs per packet and the CPU ratio sockctl/tcpdump (lower is faster);
# then a second pass with TZ=UTC compares the two outputs byte for byte (sha256).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SOCKCTL=$(realpath -m "${1:?usage: bench/capture.sh path/to/sockctl [packets]}")
PACKETS=${2:-1000000}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

CACHE=${BENCH_CACHE:-${TMPDIR:-/tmp}/sockctl-bench}
mkdir -p "$CACHE"
GEN=$(sha256sum "$HERE/make-pcap.py" | cut -c1-12)
PCAP=$CACHE/capture-$PACKETS-$GEN.pcap
if [ ! -s "$PCAP" ]; then
    rm -f "$CACHE"/capture-"$PACKETS"-*.pcap
    echo "generating $PACKETS packets into $PCAP"
    python3 "$HERE/make-pcap.py" "$PCAP.part" "$PACKETS"
    mv "$PCAP.part" "$PCAP"
fi

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

echo "reading $(du -h "$PCAP" | cut -f1) pcap, $PACKETS packets; sockctl: $SOCKCTL"
measure tcpdump-X tcpdump -n -X -r "$PCAP"
measure sockctl-X "$SOCKCTL" capture -r "$PCAP" -n -X
measure tcpdump-n tcpdump -n -r "$PCAP"
measure sockctl-n "$SOCKCTL" capture -r "$PCAP" -n --no-dump   # sockctl's default dump is -X

# identical MODE FLAGS...: "yes" when both tools print the same bytes to stdout under TZ=UTC.
identical() {
    local t s
    t=$(TZ=UTC tcpdump "$@" -r "$PCAP" 2>/dev/null | sha256sum)
    local dump=()
    case " $* " in *" -X "*|*" -XX "*|*" -x "*|*" -A "*) ;; *) dump=(--no-dump) ;; esac
    s=$(TZ=UTC "$SOCKCTL" capture -r "$PCAP" "$@" "${dump[@]}" 2>/dev/null | sha256sum) || true
    [ "$t" = "$s" ] && echo yes || echo no
}

printf '\n%-8s %-8s %9s %9s %12s %16s\n' mode tool "wall s" "CPU s" "CPU µs/pkt" "sockctl/tcpdump"
for mode in X n; do
    flags="-n -X"; [ $mode = n ] && flags="-n"
    t=tcpdump-$mode s=sockctl-$mode
    printf '%-8s %-8s %9.2f %9.2f %11.2f %16s\n' "$flags" tcpdump "${WALL[$t]}" "${CPU[$t]}" \
        "$(echo "${CPU[$t]} * 1000000 / $PACKETS" | bc -l)" ""
    if [ "${STATUS[$s]}" = 0 ]; then
        printf '%-8s %-8s %9.2f %9.2f %11.2f %15.2fx\n' "$flags" sockctl "${WALL[$s]}" "${CPU[$s]}" \
            "$(echo "${CPU[$s]} * 1000000 / $PACKETS" | bc -l)" \
            "$(echo "${CPU[$s]} / ${CPU[$t]}" | bc -l)"
    else
        msg=$(head -c 300 "$WORK/$s.err" | head -n 2 | tr '\n' ' ')
        printf '%-8s %-8s %s\n' "$flags" sockctl "FAILED (exit ${STATUS[$s]}): ${msg:-no message}"
    fi
done

echo
failed=0
for flags in "-n -X" "-n"; do
    mode=${flags#-n}; mode=${mode# -}; mode=${mode:-n}
    if [ "${STATUS[sockctl-$mode]}" != 0 ]; then
        echo "outputs identical ($flags, TZ=UTC): no (sockctl failed)"
        failed=1
        continue
    fi
    # shellcheck disable=SC2086
    same=$(identical $flags)
    echo "outputs identical ($flags, TZ=UTC): $same"
    [ "$same" = yes ] || failed=1
done
echo
echo "CPU is user + sys of one run each; ratios below 1.00x mean sockctl used less CPU than tcpdump."
exit $failed
