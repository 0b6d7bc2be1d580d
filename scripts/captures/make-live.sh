#!/bin/sh
# Makes the live loopback captures used by the golden tests (Tests/Goldens/live-*).
#
# Run once, as root, on Linux with tcpdump and python3; the results are committed, and the
# expected outputs are then made by scripts/regenerate-goldens.sh. Re-running replaces the
# captures (new timestamps, ports, sequence numbers), so regenerate the goldens afterwards.
#
# Traffic: scripts/captures/traffic.py (stdlib sockets) on 127.0.0.1 / ::1 only, fixed ports
# 6969-6974; the SACK capture runs in three network namespaces this script creates and deletes
# (sender 10.213.1.1 -> router -> receiver 10.213.2.1; an htb+pfifo qdisc on the router drops
# bursts, so the receiver sends SACKs). Every wait is bounded; only the PIDs started here are signalled.
#
#   live-lo-tcp4.pcap      -i lo, IPv4 TCP: JSON+CRLF request/replies, FIN close
#   live-lo-tcp6-rst.pcap  -i lo, IPv6 TCP (::1): JSON+CRLF, RST close (SO_LINGER 0)
#   live-lo-udp.pcap       -i lo, UDP flows over IPv4 and IPv6
#   live-any-sll2.pcap     -i any (LINUX_SLL2), IPv4 TCP session
#   live-any-sll.pcap      -i any -y LINUX_SLL, IPv4 TCP session
#   live-lo-snap60.pcap    -i lo -s 60, IPv4 TCP session (truncated frames)
#   live-lo-nano.pcap      -i lo --time-stamp-precision nano (nanosecond pcap magic)
#   live-lo-two-if.pcapng  pcapng, two interfaces: live-lo-tcp4 on in0, live-lo-udp on in1
#   live-netns-sack.pcap   -s 128 on the receiver's veth: bulk transfer with loss, SACK, wscale
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out="$root/Tests/Goldens"
traffic="python3 $here/traffic.py"
work=$(mktemp -d /tmp/sockctl-captures.XXXXXX)
NS_A=sockctl-gt-a
NS_B=sockctl-gt-b
NS_R=sockctl-gt-r
TCPDUMP_PID=

cleanup() {
    if [ -n "$TCPDUMP_PID" ] && kill -0 "$TCPDUMP_PID" 2>/dev/null; then kill -INT "$TCPDUMP_PID" 2>/dev/null || true; fi
    ip netns del "$NS_A" 2>/dev/null || true
    ip netns del "$NS_B" 2>/dev/null || true
    ip netns del "$NS_R" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

[ "$(id -u)" = 0 ] || { echo "make-live.sh: must run as root (live capture)" >&2; exit 1; }
command -v tcpdump >/dev/null || { echo "make-live.sh: tcpdump not installed" >&2; exit 1; }
mkdir -p "$out"

# start_capture FILE [netns-exec prefix...] -- tcpdump args...: starts tcpdump writing FILE and
# waits (at most 10 s) until it is listening.
start_capture() {
    file=$1; shift
    : >"$work/tcpdump.err"
    "$@" -U -w "$file" 2>"$work/tcpdump.err" &
    TCPDUMP_PID=$!
    i=0
    while ! grep -q "listening on" "$work/tcpdump.err"; do
        i=$((i + 1))
        if [ $i -gt 100 ] || ! kill -0 "$TCPDUMP_PID" 2>/dev/null; then
            cat "$work/tcpdump.err" >&2; echo "make-live.sh: tcpdump did not start" >&2; exit 1
        fi
        sleep 0.1
    done
}

# stop_capture: lets the last packets arrive, then stops the tcpdump started above.
stop_capture() {
    sleep 0.5
    kill -INT "$TCPDUMP_PID"
    wait "$TCPDUMP_PID" || true
    TCPDUMP_PID=
    tail -n 3 "$work/tcpdump.err" >&2
}

ports="port 6969 or port 6970 or port 6971 or port 6972 or port 6973 or port 6974"

echo "== live-lo-tcp4.pcap" >&2
start_capture "$out/live-lo-tcp4.pcap" tcpdump -i lo --immediate-mode -n "$ports"
$traffic tcp --host 127.0.0.1 --port 6969 --close fin --messages 3
stop_capture

echo "== live-lo-tcp6-rst.pcap" >&2
start_capture "$out/live-lo-tcp6-rst.pcap" tcpdump -i lo --immediate-mode -n "$ports"
$traffic tcp --host ::1 --port 6970 --close rst --messages 2
stop_capture

echo "== live-lo-udp.pcap" >&2
start_capture "$out/live-lo-udp.pcap" tcpdump -i lo --immediate-mode -n "$ports"
$traffic udp --host 127.0.0.1 --port 6973 --messages 2
$traffic udp --host ::1 --port 6974 --messages 2
stop_capture

echo "== live-any-sll2.pcap" >&2
start_capture "$out/live-any-sll2.pcap" tcpdump -i any --immediate-mode -n "$ports"
$traffic tcp --host 127.0.0.1 --port 6971 --close fin --messages 2
stop_capture

echo "== live-any-sll.pcap" >&2
start_capture "$out/live-any-sll.pcap" tcpdump -i any --immediate-mode -y LINUX_SLL -n "$ports"
$traffic tcp --host ::1 --port 6972 --close fin --messages 2
stop_capture

echo "== live-lo-snap60.pcap" >&2
start_capture "$out/live-lo-snap60.pcap" tcpdump -i lo --immediate-mode -s 60 -n "$ports"
$traffic tcp --host 127.0.0.1 --port 6969 --close fin --messages 2
$traffic tcp --host ::1 --port 6970 --close rst --messages 1
stop_capture

echo "== live-lo-nano.pcap" >&2
start_capture "$out/live-lo-nano.pcap" tcpdump -i lo --immediate-mode --time-stamp-precision nano -n "$ports"
$traffic tcp --host 127.0.0.1 --port 6971 --close fin --messages 1
stop_capture

echo "== live-lo-two-if.pcapng" >&2
python3 "$here/pcap2pcapng.py" "$out/live-lo-two-if.pcapng" "$out/live-lo-tcp4.pcap" "$out/live-lo-udp.pcap"

echo "== live-netns-sack.pcap" >&2
# A (10.213.1.1) -- R (router) -- B (10.213.2.1). Drops must happen on the path, not in the
# sender's own qdisc (TCP retransmits locally dropped skbs at once, leaving no hole), so R
# forwards through a slow htb class whose 6-packet fifo overflows on bursts (netem and tc
# classifiers are not in this kernel). B receives out-of-order segments and sends SACKs.
for ns in "$NS_A" "$NS_R" "$NS_B"; do ip netns add "$ns"; ip -n "$ns" link set lo up; done
ip -n "$NS_A" link add gt-a type veth peer name gt-ra netns "$NS_R"
ip -n "$NS_B" link add gt-b type veth peer name gt-rb netns "$NS_R"
ip -n "$NS_A" addr add 10.213.1.1/24 dev gt-a
ip -n "$NS_R" addr add 10.213.1.2/24 dev gt-ra
ip -n "$NS_R" addr add 10.213.2.2/24 dev gt-rb
ip -n "$NS_B" addr add 10.213.2.1/24 dev gt-b
ip -n "$NS_A" link set gt-a up
ip -n "$NS_B" link set gt-b up
ip -n "$NS_R" link set gt-ra up
ip -n "$NS_R" link set gt-rb up
ip -n "$NS_A" route add default via 10.213.1.2
ip -n "$NS_B" route add default via 10.213.2.2
ip netns exec "$NS_R" sysctl -q -w net.ipv4.ip_forward=1
# No TSO/GSO super-frames (ethtool is not installed): at most one segment per skb.
ip -n "$NS_A" link set gt-a gso_max_segs 1 2>/dev/null || true
tc -n "$NS_R" qdisc add dev gt-rb root handle 1: htb default 1
tc -n "$NS_R" class add dev gt-rb parent 1: classid 1:1 htb rate 4mbit
tc -n "$NS_R" qdisc add dev gt-rb parent 1:1 handle 10: pfifo limit 6
start_capture "$out/live-netns-sack.pcap" ip netns exec "$NS_B" tcpdump -i gt-b --immediate-mode -s 128 -n "tcp port 7000"
ip netns exec "$NS_B" python3 "$here/traffic.py" sink --host 10.213.2.1 --port 7000 &
SINK_PID=$!
sleep 0.5
ip netns exec "$NS_A" python3 "$here/traffic.py" bulk --host 10.213.2.1 --port 7000 --bytes 60000
wait "$SINK_PID"
stop_capture
tc -n "$NS_R" -s qdisc show dev gt-rb | grep -m1 dropped >&2 || true

if tcpdump -r "$out/live-netns-sack.pcap" -n 2>/dev/null | grep -q "sack "; then
    echo "live-netns-sack.pcap: has SACK blocks" >&2
else
    echo "make-live.sh: no SACK in live-netns-sack.pcap (no loss this run?) - run again" >&2
    exit 1
fi
echo "done; now run scripts/regenerate-goldens.sh" >&2
