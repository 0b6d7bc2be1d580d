#!/bin/bash
# Makes the live application captures (Tests/Goldens/live-app-*.pcap): real servers and real
# clients from Debian's packages, recorded by the real /usr/bin/tcpdump (4.99.3).
#
#   make-live-apps.sh [SCENARIO...]       (as root; no argument = all scenarios)
#
# Scenarios, each in network namespaces of its own (sockctl-*; veths sockctl-*), each writing
# one capture of at most 150 packets (tcpdump -c 150):
#   dns      live-app-dns.pcap      dnsmasq (DNS only, local records) <- dig: A AAAA MX TXT SRV
#                                   NAPTR CAA PTR, CNAME chain, NXDOMAIN, REFUSED, EDNS options and
#                                   +dnssec, +tcp, a big answer (TC over UDP, then TCP), IPv6
#   dhcp     live-app-dhcp.pcap     dnsmasq (DHCPv4, DHCPv6, router advertisements) <- dhclient
#                                   -4 and -6: DORA, ping check, SOLICIT..REPLY, RS/RA, RELEASEs;
#                                   then busybox udhcpc (other options): DORA, renew, RELEASE
#   ntp      live-app-ntp.pcap      chronyd (local stratum 8) <- chronyd -Q (iburst, xleave, IPv6)
#   ssh      live-app-ssh.pcap      sshd on port 22 <- ssh (kex, then fails: no auth method),
#                                   ssh-keyscan, over IPv4 and IPv6
#   redis    live-app-redis.pcap    redis-server on 127.0.0.1/::1:6379 (netns lo) <- redis-cli
#                                   (commands, error replies, --pipe, RESP3), inline commands;
#                                   -s 600 (the big COMMAND DOCS answer is cut)
#   http     live-app-http.pcap     python3 HTTP/1.1 server on port 80 <- curl GET HEAD POST 404
#                                   chunked, Expect: 100-continue, HTTP/1.0, IPv6
#   websocket live-app-websocket.pcap python3-websockets echo server on 8080 <- its client, with
#                                   and without permessage-deflate; a plain GET (426)
#   tls      live-app-tls.pcap      openssl s_server on 443 <- openssl s_client (TLS 1.3 and 1.2,
#                                   SNI, ALPN), curl, a TLS 1.1-only client (alert)
#   h2       live-app-h2.pcap       nghttpd (h2c) on 8000 <- curl --http2-prior-knowledge
#   vxlan    live-app-vxlan.pcap    kernel VXLAN id 42 (IPv4 underlay) and id 4242 (IPv6 underlay)
#   geneve   live-app-geneve.pcap   Open vSwitch (userspace) Geneve VNI 7; VNI 8 with an option
#                                   and the outer UDP checksum
#   gre      live-app-gre.pcap      Open vSwitch (userspace) GRE (Ethernet, key), GRE with a
#                                   checksum, ERSPAN v1 and v2
#                                   (each tunnel: pings and a short TCP exchange through it,
#                                   captured on the underlay veth)
#   igmp     live-app-igmp.pcap     a bridge's IGMP/MLD querier; IGMPv3, IGMPv2 and MLDv2 joins
#                                   and leaves of a host socket
#   mdns     live-app-mdns.pcap     avahi-daemon (probes, announcements, goodbyes) <- dig
#                                   questions to 224.0.0.251 and ff02::fb port 5353
#   syslog   live-app-syslog.pcap   logger -d -P 514 (RFC 3164 and RFC 5424) -> socat
#   lldp     live-app-lldp.pcap     two lldpd (LLDP, LLDP-MED, CDP forced) on a veth pair
#   stp      live-app-stp.pcap      two Linux bridges with STP (BPDUs, topology change)
#
# Missing packages are installed with apt-get (Debian 12); services are never started by the
# packages (a policy-rc.d denies it while installing, unless one already exists). Servers get
# their configuration from a temporary directory; nothing of the machine's own configuration is
# used or changed. Traffic stays on loopback and between the namespaces made here (documentation
# addresses 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32): dnsmasq has
# --no-resolv --no-hosts and no upstream server, chronyd serves only its local clock and its
# client never sets the clock (-Q), dhclient runs a script of ours that only configures its
# namespace's veth. Every wait is bounded; only PIDs started here are signalled; namespaces are
# deleted on exit, also on error or interrupt.
#
# A scenario that fails (a package that does not install, a kernel without vxlan, a server that
# does not start) prints a warning and is skipped; the others still run. The exit status
# is 0 when every requested scenario made its capture, 1 otherwise.
#
# The captures are committed. Re-running replaces them (new timestamps, MACs, ports, keys), so
# regenerate the goldens afterwards with scripts/regenerate-goldens.sh.
#
# The committed captures were made on Debian 12 (kernel 6.18) with tcpdump 4.99.3, dnsmasq 2.90,
# chrony 4.3, OpenSSH 9.2p1, Redis 7.0.15, BIND dig 9.18, ISC dhclient 4.4.3-P1, busybox udhcpc
# 1.35.0, curl 7.88.1, python3-websockets 10.4, Open vSwitch 3.1.0, avahi 0.8, lldpd 1.0.16,
# util-linux logger 2.38.1 (the script prints the versions it finds, as "# ..." lines).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out="$root/Tests/Goldens"
# Debian's python3 (its python3-websockets), not another python3 first on the PATH.
PYTHON=/usr/bin/python3
apps="$PYTHON $here/live_apps.py"
TCPDUMP=/usr/bin/tcpdump
MAX_PACKETS=150
work=$(mktemp -d /tmp/sockctl-live-apps.XXXXXX)
TCPDUMP_PID=

warn() { echo "make-live-apps.sh: $*" >&2; }

# Every background process started here is recorded (PID per line) in $work/pids, every namespace
# in $work/netns (and every runtime directory made here in $work/dirs); stop_all signals and
# deletes exactly those (cleanup the directories).
stop_all() {
    local pid ns i
    if [ -f "$work/pids" ]; then
        while read -r pid; do
            kill -TERM "$pid" 2>/dev/null || true
        done <"$work/pids"
        while read -r pid; do
            i=0
            while kill -0 "$pid" 2>/dev/null && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
            kill -KILL "$pid" 2>/dev/null || true
        done <"$work/pids"
        : >"$work/pids"
    fi
    if [ -f "$work/netns" ]; then
        while read -r ns; do ip netns del "$ns" 2>/dev/null || true; done <"$work/netns"
        : >"$work/netns"
    fi
}

cleanup() {
    stop_all
    local dir
    if [ -f "$work/dirs" ]; then
        while read -r dir; do rm -rf "$dir"; done <"$work/dirs"
    fi
    [ -f "$work/policy-rc.d.created" ] && rm -f /usr/sbin/policy-rc.d
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" = 0 ] || { warn "must run as root (namespaces, live capture)"; exit 1; }
[ -x "$TCPDUMP" ] || { warn "$TCPDUMP not installed"; exit 1; }
command -v ip >/dev/null || { warn "iproute2 (ip) not installed"; exit 1; }
mkdir -p "$out"
chmod 755 "$work"  # servers that drop privileges read their files here
: >"$work/pids"
: >"$work/netns"

# ---------------------------------------------------------------------------------- helpers

APT_UPDATED=
# need PACKAGE...: installs the packages that are not installed yet; fails if one does not install.
need() {
    local missing=() p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "   installing ${missing[*]}" >&2
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d
        : >"$work/policy-rc.d.created"
    fi
    if [ -z "$APT_UPDATED" ]; then
        apt-get update -qq >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; return 1; }
        APT_UPDATED=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" \
        >"$work/apt.log" 2>&1 || { tail -n 5 "$work/apt.log" >&2; return 1; }
}

# mkdir_run DIR: a runtime directory a daemon insists on (/run/sshd ...), removed at exit if made
# here (listed in a file: scenarios run in subshells).
mkdir_run() {
    [ -d "$1" ] && return 0
    mkdir -p "$1" && echo "$1" >>"$work/dirs"
}

# spawn NAME CMD...: runs CMD in namespace sockctl-NAME in the background (ip netns exec execs
# CMD, so the PID is CMD's), recorded for stop_all.
spawn() {
    local n=$1; shift
    ip netns exec "sockctl-$n" "$@" &
    LAST_PID=$!
    echo "$LAST_PID" >>"$work/pids"
}

# netns NAME...: new namespaces sockctl-NAME with lo up and no IPv6 duplicate address detection.
netns() {
    local n
    for n in "$@"; do
        ip netns add "sockctl-$n" || return 1
        echo "sockctl-$n" >>"$work/netns"
        ip -n "sockctl-$n" link set lo up
        ip netns exec "sockctl-$n" sysctl -q -w net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
    done
}

# nsx NAME CMD...: runs CMD in namespace sockctl-NAME.
nsx() { local n=$1; shift; ip netns exec "sockctl-$n" "$@"; }

# veth NS_A IF_A NS_B IF_B: a veth pair between two namespaces, both ends up. Checksum offload
# is turned off (ethtool), so the captured packets carry the real checksums, as on a wire.
veth() {
    ip -n "sockctl-$1" link add "$2" type veth peer name "$4" netns "sockctl-$3" || return 1
    if [ -n "$ETHTOOL" ]; then
        nsx "$1" "$ETHTOOL" -K "$2" tx off >/dev/null 2>&1 || true
        nsx "$3" "$ETHTOOL" -K "$4" tx off >/dev/null 2>&1 || true
    fi
    ip -n "sockctl-$1" link set "$2" up
    ip -n "sockctl-$3" link set "$4" up
}

# wait_for SECONDS CMD...: retries CMD every 0.1 s until it succeeds; fails after SECONDS.
wait_for() {
    local limit=$(($1 * 10)) i=0; shift
    until "$@" >/dev/null 2>&1; do
        i=$((i + 1)); [ $i -ge $limit ] && return 1
        sleep 0.1
    done
}

# capture NAME NS IF FILTER...: starts tcpdump in namespace NS on IF, writing $work/NAME.pcap.
capture() {
    local name=$1 ns=$2 ifname=$3; shift 3
    : >"$work/tcpdump.err"
    ip netns exec "sockctl-$ns" "$TCPDUMP" -i "$ifname" --immediate-mode -U -c "$MAX_PACKETS" \
        -w "$work/$name.pcap" "$@" 2>"$work/tcpdump.err" &
    TCPDUMP_PID=$!
    echo "$TCPDUMP_PID" >>"$work/pids"
    if ! wait_for 10 grep -q "listening on" "$work/tcpdump.err"; then
        cat "$work/tcpdump.err" >&2; warn "tcpdump did not start"; return 1
    fi
}

# publish NAME: stops the capture, checks it and moves it to Tests/Goldens/live-app-NAME.pcap.
publish() {
    local name=$1 count
    sleep 0.5
    kill -INT "$TCPDUMP_PID" 2>/dev/null || true
    wait "$TCPDUMP_PID" 2>/dev/null || true
    # Packets, not lines: a packet's first line starts with its time stamp (-tt).
    count=$("$TCPDUMP" -n -tt -r "$work/$name.pcap" 2>/dev/null | grep -c '^[0-9]' || true)
    if [ "$count" -eq 0 ]; then warn "$name: the capture is empty"; return 1; fi
    mv "$work/$name.pcap" "$out/live-app-$name.pcap"
    chown --reference="$out" "$out/live-app-$name.pcap"  # tcpdump -w writes as user tcpdump
    echo "   live-app-$name.pcap: $count packets" >&2
}

version() { echo "# $*" >&2; }

# ---------------------------------------------------------------------------------- scenarios

scenario_dns() {
    need dnsmasq-base dnsutils
    version "$(dnsmasq --version | head -n 1)"
    version "$(dig -v 2>&1)"
    netns dns-srv dns-cli
    veth dns-srv sockctl-dnsS dns-cli sockctl-dnsC
    ip -n sockctl-dns-srv addr add 192.0.2.53/24 dev sockctl-dnsS
    ip -n sockctl-dns-srv addr add 192.0.2.54/24 dev sockctl-dnsS
    ip -n sockctl-dns-srv addr add 2001:db8::53/64 dev sockctl-dnsS nodad
    ip -n sockctl-dns-cli addr add 192.0.2.10/24 dev sockctl-dnsC
    ip -n sockctl-dns-cli addr add 2001:db8::10/64 dev sockctl-dnsC nodad
    {
        echo "port=53"
        echo "listen-address=192.0.2.53,192.0.2.54,2001:db8::53"
        echo "bind-interfaces"
        echo "no-resolv"
        echo "no-hosts"
        echo "no-poll"
        echo "log-queries"
        echo "log-facility=-"
        echo "pid-file="
        echo "user=root"
        echo "local=/example.com/"
        echo "local=/2.0.192.in-addr.arpa/"
        echo "host-record=www.example.com,192.0.2.80,2001:db8::80"
        echo "host-record=mail.example.com,192.0.2.25,2001:db8::25"
        echo "host-record=mail2.example.com,192.0.2.26"
        echo "host-record=sip.example.com,192.0.2.60"
        echo "mx-host=example.com,mail.example.com,10"
        echo "mx-host=example.com,mail2.example.com,20"
        echo 'txt-record=example.com,"v=spf1 ip4:192.0.2.0/24 -all"'
        echo 'txt-record=txt.example.com,"first string","second string, with spaces and \"quotes\"",""'
        echo "srv-host=_sip._udp.example.com,sip.example.com,5060,10,20"
        echo "srv-host=_sip._udp.example.com,sip.example.com,5061,20,0"
        echo "naptr-record=example.com,100,10,S,SIP+D2U,,_sip._udp.example.com"
        echo "cname=alias.example.com,www.example.com"
        echo "cname=chain.example.com,alias.example.com"
        echo "dns-rr=example.com,257,000569737375656578616d706c652e6e6574"
        echo "ptr-record=_http._tcp.example.com,web._http._tcp.example.com"
        # An authoritative zone on 192.0.2.54: SOA and NS records, NXDOMAIN with the SOA in the
        # authority section.
        echo "auth-server=ns1.example.net,192.0.2.54"
        echo "auth-zone=example.net"
        echo "auth-soa=2026112501,hostmaster.example.net,1200,120,604800,300"
        echo "host-record=www.example.net,192.0.2.81"
        for i in $(seq 101 130); do echo "host-record=big.example.com,192.0.2.$i,2001:db8::$i"; done
    } >"$work/dnsmasq-dns.conf"
    spawn dns-srv dnsmasq --keep-in-foreground --conf-file="$work/dnsmasq-dns.conf" 2>"$work/dnsmasq-dns.log"
    wait_for 10 nsx dns-cli dig +tries=1 +timeout=1 @192.0.2.53 www.example.com || { cat "$work/dnsmasq-dns.log" >&2; return 1; }
    capture dns dns-cli sockctl-dnsC port 53
    local d="dig +tries=1 +timeout=2"
    nsx dns-cli $d @192.0.2.53 www.example.com A >/dev/null
    nsx dns-cli $d @192.0.2.53 www.example.com AAAA >/dev/null
    nsx dns-cli $d @192.0.2.53 example.com MX >/dev/null
    nsx dns-cli $d @192.0.2.53 example.com TXT >/dev/null
    nsx dns-cli $d @192.0.2.53 txt.example.com TXT >/dev/null
    nsx dns-cli $d @192.0.2.53 _sip._udp.example.com SRV >/dev/null
    nsx dns-cli $d @192.0.2.53 example.com NAPTR >/dev/null
    nsx dns-cli $d @192.0.2.53 example.com CAA >/dev/null
    nsx dns-cli $d @192.0.2.53 _http._tcp.example.com PTR >/dev/null
    nsx dns-cli $d @192.0.2.53 -x 192.0.2.80 >/dev/null
    nsx dns-cli $d @192.0.2.53 -x 2001:db8::80 >/dev/null
    nsx dns-cli $d @192.0.2.53 chain.example.com A >/dev/null
    nsx dns-cli $d @192.0.2.53 nosuch.example.com A >/dev/null
    nsx dns-cli $d @192.0.2.53 www.example.org A >/dev/null
    nsx dns-cli $d @192.0.2.53 +norecurse +noedns www.example.com A >/dev/null
    nsx dns-cli $d @192.0.2.53 +dnssec +nsid +subnet=198.51.100.0/24 +expire www.example.com A >/dev/null
    nsx dns-cli $d @192.0.2.54 example.net SOA >/dev/null
    nsx dns-cli $d @192.0.2.54 example.net NS >/dev/null
    nsx dns-cli $d @192.0.2.54 nosuch.example.net A >/dev/null
    nsx dns-cli $d @192.0.2.53 +tcp +keepalive example.com MX >/dev/null
    nsx dns-cli $d @192.0.2.53 +noedns big.example.com A >/dev/null   # TC over UDP, then TCP
    nsx dns-cli $d @192.0.2.53 big.example.com AAAA >/dev/null        # ~900 bytes over UDP (EDNS)
    nsx dns-cli $d @2001:db8::53 www.example.com AAAA >/dev/null
    nsx dns-cli $d @2001:db8::53 +tcp mail.example.com A >/dev/null
    publish dns
}

scenario_dhcp() {
    need dnsmasq-base isc-dhcp-client
    version "$(dnsmasq --version | head -n 1)"
    version "$(dhclient --version 2>&1)"
    netns dhcp-srv dhcp-cli
    veth dhcp-srv sockctl-dhcpS dhcp-cli sockctl-dhcpC
    ip -n sockctl-dhcp-cli link set sockctl-dhcpC down
    ip -n sockctl-dhcp-srv addr add 192.0.2.1/24 dev sockctl-dhcpS
    ip -n sockctl-dhcp-srv addr add 2001:db8:1::1/64 dev sockctl-dhcpS nodad
    {
        echo "port=0"
        echo "interface=sockctl-dhcpS"
        echo "bind-interfaces"
        echo "no-resolv"
        echo "no-hosts"
        echo "no-poll"
        echo "log-dhcp"
        echo "log-facility=-"
        echo "pid-file="
        echo "user=root"
        echo "dhcp-leasefile=$work/dnsmasq.leases"
        echo "dhcp-authoritative"
        echo "domain=example.com"
        echo "dhcp-range=192.0.2.100,192.0.2.150,255.255.255.0,10m"
        echo "dhcp-range=2001:db8:1::100,2001:db8:1::1ff,64,10m"
        echo "enable-ra"
        echo "dhcp-option=option:router,192.0.2.1"
        echo "dhcp-option=option:dns-server,192.0.2.1"
        echo "dhcp-option=option:ntp-server,192.0.2.1"
        echo "dhcp-option=option:domain-search,example.com,lab.example.com"
        echo "dhcp-option=option6:dns-server,[2001:db8:1::1]"
        echo "dhcp-option=option6:domain-search,example.com"
    } >"$work/dnsmasq-dhcp.conf"
    {
        echo 'send host-name "sockctl-client";'
        echo 'request subnet-mask, broadcast-address, time-offset, routers, domain-name,'
        echo '        domain-name-servers, domain-search, host-name, ntp-servers, interface-mtu;'
        echo 'timeout 20;'
    } >"$work/dhclient.conf"
    # The client's script only configures the namespace's veth (never /etc/resolv.conf).
    cat >"$work/dhclient-script" <<'EOF'
#!/bin/sh
echo "$reason" >>"$(dirname "$0")/dhclient.reasons"
case "$reason" in
    BOUND|RENEW|REBIND|REBOOT)
        ip addr add "$new_ip_address/24" dev "$interface" ;;
    BOUND6|RENEW6|REBIND6)
        [ -n "$new_ip6_address" ] && ip -6 addr add "$new_ip6_address/128" dev "$interface" nodad ;;
    RELEASE|EXPIRE|STOP)
        ip -4 addr flush dev "$interface" ;;
    RELEASE6|EXPIRE6|STOP6)
        ip -6 addr flush dev "$interface" scope global ;;
esac
exit 0
EOF
    chmod 755 "$work/dhclient-script"
    spawn dhcp-srv dnsmasq --keep-in-foreground --conf-file="$work/dnsmasq-dhcp.conf" 2>"$work/dnsmasq-dhcp.log"
    sleep 1
    kill -0 "$LAST_PID" 2>/dev/null || { cat "$work/dnsmasq-dhcp.log" >&2; return 1; }
    capture dhcp dhcp-srv sockctl-dhcpS "arp or icmp or udp port 67 or udp port 68 or udp port 546 or udp port 547 or (icmp6 and ip6[40] >= 133 and ip6[40] <= 136)"
    # Link up now: the kernel's router solicitation gets dnsmasq's advertisement.
    ip -n sockctl-dhcp-cli link set sockctl-dhcpC up
    local dh=(dhclient -cf "$work/dhclient.conf" -sf "$work/dhclient-script")
    spawn dhcp-cli "${dh[@]}" -4 -d -v -lf "$work/dhclient4.leases" -pf "$work/dhclient4.pid" sockctl-dhcpC 2>"$work/dhclient4.log"
    wait_for 20 grep -q '^BOUND$' "$work/dhclient.reasons" || { cat "$work/dhclient4.log" >&2; warn "dhcp: no DHCPv4 lease"; return 1; }
    spawn dhcp-cli "${dh[@]}" -6 -d -v -lf "$work/dhclient6.leases" -pf "$work/dhclient6.pid" sockctl-dhcpC 2>"$work/dhclient6.log"
    wait_for 20 grep -q '^BOUND6$' "$work/dhclient.reasons" || { cat "$work/dhclient6.log" >&2; warn "dhcp: no DHCPv6 lease"; }
    # -r stops the running client (its pid file) and sends a RELEASE.
    nsx dhcp-cli timeout 10 "${dh[@]}" -4 -r -v -lf "$work/dhclient4.leases" -pf "$work/dhclient4.pid" sockctl-dhcpC 2>>"$work/dhclient4.log"
    nsx dhcp-cli timeout 10 "${dh[@]}" -6 -r -v -lf "$work/dhclient6.leases" -pf "$work/dhclient6.pid" sockctl-dhcpC 2>>"$work/dhclient6.log"
    sleep 0.5
    # A second client with other options and layouts: busybox udhcpc (host name, vendor class,
    # requested options); once bound, SIGUSR1 renews (a unicast REQUEST) and SIGUSR2 releases.
    # Optional: without it only dhclient's exchanges are captured.
    if need udhcpc; then
        cat >"$work/udhcpc-script" <<'EOF2'
#!/bin/sh
echo "udhcpc-$1" >>"$(dirname "$0")/dhclient.reasons"
case "$1" in
    bound|renew) ip addr replace "$ip/${mask:-24}" dev "$interface" ;;
    deconfig) ip -4 addr flush dev "$interface" ;;
esac
exit 0
EOF2
        chmod 755 "$work/udhcpc-script"
        version "$(udhcpc --help 2>&1 | head -n 1)"
        spawn dhcp-cli udhcpc -f -i sockctl-dhcpC -s "$work/udhcpc-script" -t 3 -T 2 \
            -x hostname:sockctl-udhcpc -V sockctl-golden -O ntpsrv -O domain 2>"$work/udhcpc.log"
        local udhcpc=$LAST_PID
        if wait_for 20 grep -q '^udhcpc-bound$' "$work/dhclient.reasons"; then
            kill -USR1 "$udhcpc"
            wait_for 10 grep -q '^udhcpc-renew$' "$work/dhclient.reasons" || warn "dhcp: udhcpc did not renew"
            kill -USR2 "$udhcpc"
            sleep 0.5
        else
            cat "$work/udhcpc.log" >&2; warn "dhcp: udhcpc got no lease"
        fi
        kill -TERM "$udhcpc"
        wait "$udhcpc" 2>/dev/null || true
    else
        warn "dhcp: udhcpc did not install, only dhclient's exchanges are captured"
    fi
    sleep 0.5
    publish dhcp
}

scenario_ntp() {
    need chrony
    version "$(chronyd --version)"
    netns ntp-srv ntp-cli
    veth ntp-srv sockctl-ntpS ntp-cli sockctl-ntpC
    ip -n sockctl-ntp-srv addr add 192.0.2.123/24 dev sockctl-ntpS
    ip -n sockctl-ntp-srv addr add 2001:db8::123/64 dev sockctl-ntpS nodad
    ip -n sockctl-ntp-cli addr add 192.0.2.10/24 dev sockctl-ntpC
    ip -n sockctl-ntp-cli addr add 2001:db8::10/64 dev sockctl-ntpC nodad
    mkdir -p "$work/chrony" && chown _chrony "$work/chrony"  # its pid files, after dropping root
    {
        echo "local stratum 8"
        echo "allow 192.0.2.0/24"
        echo "allow 2001:db8::/64"
        echo "cmdport 0"
        echo "bindcmdaddress /"
        echo "pidfile $work/chrony/chronyd-srv.pid"
    } >"$work/chrony-srv.conf"
    {
        echo "server 192.0.2.123 iburst minpoll -2 maxpoll -2"
        echo "server 2001:db8::123 iburst xleave minpoll -2 maxpoll -2"
        echo "cmdport 0"
        echo "bindcmdaddress /"
        echo "pidfile $work/chrony/chronyd-cli.pid"
    } >"$work/chrony-cli.conf"
    # -x: never touch the (shared) system clock.
    spawn ntp-srv chronyd -d -x -u _chrony -f "$work/chrony-srv.conf" 2>"$work/chronyd-srv.log"
    wait_for 10 nsx ntp-srv sh -c 'ss -Hlun | grep -q ":123 "' || { cat "$work/chronyd-srv.log" >&2; return 1; }
    sleep 1  # local reference selected
    capture ntp ntp-cli sockctl-ntpC udp port 123
    # -Q: measure the offset and print it, never set the clock.
    nsx ntp-cli timeout 30 chronyd -Q -t 20 -u _chrony -f "$work/chrony-cli.conf" 2>&1 | sed 's/^/   chronyd -Q: /' >&2
    publish ntp
}

scenario_ssh() {
    need openssh-server openssh-client
    version "$(/usr/sbin/sshd -V 2>&1 | head -n 1)"
    mkdir_run /run/sshd
    netns ssh-srv ssh-cli
    veth ssh-srv sockctl-sshS ssh-cli sockctl-sshC
    ip -n sockctl-ssh-srv addr add 192.0.2.22/24 dev sockctl-sshS
    ip -n sockctl-ssh-srv addr add 2001:db8::22/64 dev sockctl-sshS nodad
    ip -n sockctl-ssh-cli addr add 192.0.2.10/24 dev sockctl-sshC
    ip -n sockctl-ssh-cli addr add 2001:db8::10/64 dev sockctl-sshC nodad
    ssh-keygen -q -t ed25519 -N '' -C sockctl-golden -f "$work/ssh_host_ed25519_key"
    {
        echo "Port 22"
        echo "ListenAddress 192.0.2.22"
        echo "ListenAddress [2001:db8::22]"
        echo "HostKey $work/ssh_host_ed25519_key"
        echo "PidFile $work/sshd.pid"
        echo "UsePAM no"
        echo "PasswordAuthentication no"
        echo "KbdInteractiveAuthentication no"
        echo "PermitRootLogin no"
        echo "AuthorizedKeysFile none"
    } >"$work/sshd_config"
    spawn ssh-srv /usr/sbin/sshd -D -e -f "$work/sshd_config" 2>"$work/sshd.log"
    wait_for 10 nsx ssh-srv sh -c 'ss -Hltn | grep -q ":22 "' || { cat "$work/sshd.log" >&2; return 1; }
    capture ssh ssh-cli sockctl-sshC tcp port 22
    local ssh=(ssh -F /dev/null -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
        -o GlobalKnownHostsFile=/dev/null -o PubkeyAuthentication=no -o ConnectTimeout=5)
    nsx ssh-cli timeout 15 "${ssh[@]}" nosuchuser@192.0.2.22 true 2>&1 | sed 's/^/   ssh: /' >&2 || true
    nsx ssh-cli timeout 15 "${ssh[@]}" -o KexAlgorithms=curve25519-sha256 -o Ciphers=aes128-ctr -o MACs=hmac-sha2-256 \
        nosuchuser@2001:db8::22 true 2>&1 | sed 's/^/   ssh: /' >&2 || true
    nsx ssh-cli timeout 15 ssh-keyscan -T 5 -t ed25519 192.0.2.22 2>/dev/null | sed 's/^/   ssh-keyscan: /' >&2
    publish ssh
}

scenario_redis() {
    need redis-server redis-tools socat
    version "$(redis-server --version)"
    netns redis
    spawn redis redis-server --bind "127.0.0.1 ::1" --port 6379 --save "" --appendonly no \
        --daemonize no --dir "$work" --protected-mode yes --loglevel warning >"$work/redis.log" 2>&1
    wait_for 10 nsx redis redis-cli -h 127.0.0.1 ping || return 1
    # -s 600: redis-cli's interactive mode first asks COMMAND DOCS (a 170 kB answer in a few
    # 64 kB loopback segments); the snap length keeps the capture small (and cuts those RESP
    # messages, as a capture with a snap length does).
    capture redis redis lo -s 600 tcp port 6379
    printf '%s\n' "SET greeting 'hello world'" "GET greeting" "INCR counter" "INCRBY counter 41" \
        "INCR greeting" "LPUSH list a b c" "LRANGE list 0 -1" "HSET user:1 name alice age 30" \
        "HGETALL user:1" "GET nokey" "PING" "NOSUCHCOMMAND x" "EXISTS greeting list nokey" \
        >"$work/redis-commands.txt"
    nsx redis timeout 10 redis-cli -h 127.0.0.1 <"$work/redis-commands.txt" | sed 's/^/   redis-cli: /' >&2
    # A pipeline: several RESP commands in one write (redis-cli --pipe adds its ECHO marker).
    printf '*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n*2\r\n$4\r\nINCR\r\n$1\r\nk\r\n*1\r\n$4\r\nPING\r\n' \
        | nsx redis timeout 10 redis-cli -h 127.0.0.1 --pipe 2>&1 | sed 's/^/   redis-cli --pipe: /' >&2 || true
    # RESP3 (HELLO 3: maps, sets, doubles) over IPv6.
    printf '%s\n' "HGETALL user:1" "SMEMBERS nokey" "INCRBYFLOAT fl 1.5" | \
        nsx redis timeout 10 redis-cli -3 -h ::1 | sed 's/^/   redis-cli -3: /' >&2
    # Inline commands (no RESP framing) in one write.
    printf 'PING\r\nECHO inline\r\nGET greeting\r\nQUIT\r\n' | nsx redis timeout 5 socat - TCP:127.0.0.1:6379 >/dev/null
    publish redis
}

http_setup() {
    need curl python3-websockets
    version "$(curl --version | head -n 1)"
    version "python3-websockets $($PYTHON -c 'import websockets; print(websockets.__version__)')"
    netns http-srv http-cli
    veth http-srv sockctl-httpS http-cli sockctl-httpC
    ip -n sockctl-http-srv addr add 192.0.2.80/24 dev sockctl-httpS
    ip -n sockctl-http-srv addr add 2001:db8::80/64 dev sockctl-httpS nodad
    ip -n sockctl-http-cli addr add 192.0.2.10/24 dev sockctl-httpC
    ip -n sockctl-http-cli addr add 2001:db8::10/64 dev sockctl-httpC nodad
}

scenario_http() {
    http_setup
    mkdir -p "$work/www"
    printf '<!DOCTYPE html>\n<html><head><title>sockctl</title></head><body><p>golden corpus</p></body></html>\n' >"$work/www/index.html"
    printf 'plain text file\nsecond line\n' >"$work/www/file.txt"
    spawn http-srv $apps http-server --port 80 --root "$work/www" 2>"$work/http-server.log"
    wait_for 10 nsx http-cli curl -s -o /dev/null http://192.0.2.80/ || { cat "$work/http-server.log" >&2; return 1; }
    capture http http-cli sockctl-httpC tcp port 80
    local c=(curl -s -S -o /dev/null --max-time 5)
    nsx http-cli "${c[@]}" http://192.0.2.80/ http://192.0.2.80/file.txt   # one kept-alive connection
    nsx http-cli "${c[@]}" -I http://192.0.2.80/file.txt
    nsx http-cli "${c[@]}" -d 'name=sockctl&mode=golden' http://192.0.2.80/echo
    nsx http-cli "${c[@]}" -H 'Content-Type: application/json' -H 'Expect: 100-continue' \
        --data-binary '{"id":1,"text":"a JSON body sent after 100 Continue"}' http://192.0.2.80/echo
    nsx http-cli "${c[@]}" http://192.0.2.80/missing
    nsx http-cli "${c[@]}" http://192.0.2.80/chunked
    nsx http-cli "${c[@]}" --http1.0 -A 'sockctl-golden/1.0' http://192.0.2.80/file.txt
    nsx http-cli "${c[@]}" -g 'http://[2001:db8::80]/index.html'
    publish http
}

scenario_websocket() {
    http_setup
    spawn http-srv $apps ws-server --port 8080 2>"$work/ws-server.log"
    wait_for 10 nsx http-srv sh -c 'ss -Hltn | grep -q ":8080 "' || { cat "$work/ws-server.log" >&2; return 1; }
    capture websocket http-cli sockctl-httpC tcp port 8080
    nsx http-cli $apps ws-client --url ws://192.0.2.80:8080/chat
    nsx http-cli $apps ws-client --url 'ws://[2001:db8::80]:8080/raw' --no-compression
    nsx http-cli curl -s -S -o /dev/null --max-time 5 http://192.0.2.80:8080/
    publish websocket
}

# tls: openssl s_server on 443 (a self-signed certificate for www.example.com made here, ALPN
# h2 and http/1.1) <- openssl s_client with SNI and ALPN over TLS 1.3 and TLS 1.2, curl, and a
# client that offers only TLS 1.1 (the server's protocol_version alert). tcpdump prints no more
# than the TCP lines (443 is not one of its ports); these captures are for `capture --decode`.
scenario_tls() {
    http_setup
    need openssl
    version "$(openssl version)"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
        -subj /CN=www.example.com -addext subjectAltName=DNS:www.example.com \
        -keyout "$work/tls.key" -out "$work/tls.pem" 2>/dev/null
    spawn http-srv openssl s_server -accept 443 -cert "$work/tls.pem" -key "$work/tls.key" \
        -alpn h2,http/1.1 -www -quiet
    wait_for 10 nsx http-srv sh -c 'ss -Hltn | grep -q ":443 "' || return 1
    capture tls http-cli sockctl-httpC tcp port 443
    local s=(timeout 5 openssl s_client -connect 192.0.2.80:443 -servername www.example.com -quiet)
    printf 'GET / HTTP/1.0\r\n\r\n' | nsx http-cli "${s[@]}" -tls1_3 -alpn h2,http/1.1 >/dev/null 2>&1 || true
    printf 'GET / HTTP/1.0\r\n\r\n' | nsx http-cli "${s[@]}" -tls1_2 -alpn http/1.1 >/dev/null 2>&1 || true
    nsx http-cli curl -s -S -k -o /dev/null --max-time 5 --http1.1 https://192.0.2.80/ || true
    nsx http-cli "${s[@]}" -tls1_1 </dev/null >/dev/null 2>&1 || true
    publish tls
}

# h2: nghttpd (HTTP/2 without TLS) on 8000 <- curl with prior knowledge (preface, SETTINGS,
# HEADERS, DATA, WINDOW_UPDATE, GOAWAY), over IPv4 and IPv6. (nghttpd does not answer an h2c
# upgrade, so that path is tested with crafted packets.)
scenario_h2() {
    http_setup
    need nghttp2-server
    version "$(nghttpd --version)"
    mkdir -p "$work/www"
    printf '{"id":1,"text":"served over HTTP/2"}\n' >"$work/www/data.json"
    spawn http-srv nghttpd --no-tls -d "$work/www" 8000
    wait_for 10 nsx http-srv sh -c 'ss -Hltn | grep -q ":8000 "' || return 1
    capture h2 http-cli sockctl-httpC tcp port 8000
    # One request per connection: curl 7.88 fails a second request on nghttpd's connection.
    local c=(curl -s -S -o /dev/null --max-time 5 --http2-prior-knowledge)
    nsx http-cli "${c[@]}" http://192.0.2.80:8000/data.json
    nsx http-cli "${c[@]}" http://192.0.2.80:8000/missing
    nsx http-cli "${c[@]}" -g 'http://[2001:db8::80]:8000/data.json'
    publish h2
}

# tunnel_pair NAME: namespaces tun-NAME-a / tun-NAME-b joined by the underlay veth
# sockctl-tuA (192.0.2.1, 2001:db8::1) <-> sockctl-tuB (192.0.2.2, 2001:db8::2).
tunnel_pair() {
    need iputils-ping
    netns "tun-$1-a" "tun-$1-b"
    veth "tun-$1-a" sockctl-tuA "tun-$1-b" sockctl-tuB
    ip -n "sockctl-tun-$1-a" addr add 192.0.2.1/24 dev sockctl-tuA
    ip -n "sockctl-tun-$1-a" addr add 2001:db8::1/64 dev sockctl-tuA nodad
    ip -n "sockctl-tun-$1-b" addr add 192.0.2.2/24 dev sockctl-tuB
    ip -n "sockctl-tun-$1-b" addr add 2001:db8::2/64 dev sockctl-tuB nodad
}

# tunnel_link NAME IF OVERLAY_A OVERLAY_B TYPE ARGS_A... -- ARGS_B...: the same tunnel device on
# both ends (IPv6 off on it: no router solicitations or MLD reports through the tunnel).
tunnel_link() {
    local name=$1 ifname=$2 oa=$3 ob=$4 type=$5; shift 5
    local args_a=() args_b=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do args_a+=("$1"); shift; done
    shift
    args_b=("$@")
    ip -n "sockctl-tun-$name-a" link add "$ifname" type "$type" "${args_a[@]}" || return 1
    ip -n "sockctl-tun-$name-b" link add "$ifname" type "$type" "${args_b[@]}" || return 1
    local side addr
    for side in a b; do
        [ $side = a ] && addr=$oa || addr=$ob
        nsx "tun-$name-$side" sysctl -q -w "net.ipv6.conf.$ifname.disable_ipv6=1"
        ip -n "sockctl-tun-$name-$side" addr add "$addr" dev "$ifname"
        ip -n "sockctl-tun-$name-$side" link set "$ifname" up
    done
}

# tunnel_traffic NAME PEER_B: pings from a to b and a short TCP exchange (traffic.py bulk -> sink).
tunnel_traffic() {
    nsx "tun-$1-a" ping -c 3 -i 0.2 -W 2 "$2" | sed -n 's/^/   ping: /; /packets transmitted/p' >&2
    spawn "tun-$1-b" $PYTHON "$here/traffic.py" sink --host "$2" --port 7000
    local sink=$LAST_PID
    sleep 0.5
    nsx "tun-$1-a" $PYTHON "$here/traffic.py" bulk --host "$2" --port 7000 --bytes 600
    wait "$sink" 2>/dev/null || true
}

scenario_vxlan() {
    tunnel_pair vxlan
    tunnel_link vxlan sockctl-vx42 198.51.100.1/24 198.51.100.2/24 vxlan \
        id 42 local 192.0.2.1 remote 192.0.2.2 dstport 4789 dev sockctl-tuA -- \
        id 42 local 192.0.2.2 remote 192.0.2.1 dstport 4789 dev sockctl-tuB
    tunnel_link vxlan sockctl-vx6 203.0.113.1/24 203.0.113.2/24 vxlan \
        id 4242 local 2001:db8::1 remote 2001:db8::2 dstport 4789 dev sockctl-tuA -- \
        id 4242 local 2001:db8::2 remote 2001:db8::1 dstport 4789 dev sockctl-tuB
    capture vxlan tun-vxlan-a sockctl-tuA udp port 4789
    tunnel_traffic vxlan 198.51.100.2
    tunnel_traffic vxlan 203.0.113.2
    publish vxlan
}

# Geneve and GRE come from Open vSwitch's userspace datapath (datapath_type=netdev), a real
# implementation that needs neither the kernel's geneve/ip_gre modules (this corpus was made on a
# kernel without them) nor its openvswitch module. Per side: an ovsdb-server and an ovs-vswitchd
# with their files in the temporary directory; bridge sockctl-ophy holds the underlay veth and
# the underlay address (192.0.2.1 / .2), bridge sockctl-oint the tunnel port sockctl-tnl and the
# overlay address (198.51.100.1 / .2). IPv6 is off in these namespaces (no RS/MLD noise).

# ovs_pair NAME: namespaces ovs-NAME-a / ovs-NAME-b, their veth, their two switches.
ovs_pair() {
    need openvswitch-switch iputils-ping
    version "$(ovs-vswitchd --version | head -n 1) (userspace datapath)"
    netns "ovs-$1-a" "ovs-$1-b"
    local side n dir
    for side in a b; do
        nsx "ovs-$1-$side" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
    done
    veth "ovs-$1-a" sockctl-ovA "ovs-$1-b" sockctl-ovB
    for side in a b; do
        [ $side = a ] && n=1 || n=2
        dir="$work/ovs-$1-$side"
        mkdir -p "$dir"
        ovsdb-tool create "$dir/conf.db" /usr/share/openvswitch/vswitch.ovsschema
        spawn "ovs-$1-$side" env OVS_RUNDIR="$dir" OVS_LOGDIR="$dir" OVS_DBDIR="$dir" \
            ovsdb-server "$dir/conf.db" --remote="punix:$dir/db.sock" --pidfile="$dir/ovsdb-server.pid" \
            --unixctl="$dir/ovsdb-server.ctl" --log-file="$dir/ovsdb-server.log" 2>>"$dir/stderr.log"
        wait_for 10 test -S "$dir/db.sock" || { cat "$dir/stderr.log" >&2; return 1; }
        ovs-vsctl --db="unix:$dir/db.sock" --timeout=10 --no-wait init
        spawn "ovs-$1-$side" env OVS_RUNDIR="$dir" OVS_LOGDIR="$dir" OVS_DBDIR="$dir" \
            ovs-vswitchd "unix:$dir/db.sock" --pidfile="$dir/ovs-vswitchd.pid" \
            --unixctl="$dir/ovs-vswitchd.ctl" --log-file="$dir/ovs-vswitchd.log" 2>>"$dir/stderr.log"
        wait_for 10 test -S "$dir/ovs-vswitchd.ctl" || { cat "$dir/stderr.log" >&2; return 1; }
        ovsv "$1" "$side" add-br sockctl-ophy -- set bridge sockctl-ophy datapath_type=netdev \
            -- add-port sockctl-ophy "sockctl-ov${side^^}"
        ovsv "$1" "$side" add-br sockctl-oint -- set bridge sockctl-oint datapath_type=netdev
        ip -n "sockctl-ovs-$1-$side" addr add "192.0.2.$n/24" dev sockctl-ophy
        ip -n "sockctl-ovs-$1-$side" link set sockctl-ophy up
        ip -n "sockctl-ovs-$1-$side" addr add "198.51.100.$n/24" dev sockctl-oint
        ip -n "sockctl-ovs-$1-$side" link set sockctl-oint up
    done
}

# ovsv NAME SIDE ARGS...: ovs-vsctl against that side's database.
ovsv() { ovs-vsctl --db="unix:$work/ovs-$1-$2/db.sock" --timeout=10 "${@:3}"; }

# ovs_tunnel NAME TYPE OPTION=VALUE...: (re)configures the tunnel port sockctl-tnl on both sides
# (remote_ip is the other side's underlay address), then waits for the overlay to answer pings.
ovs_tunnel() {
    local name=$1 type=$2 side peer opts o; shift 2
    for side in a b; do
        [ $side = a ] && peer=192.0.2.2 || peer=192.0.2.1
        opts=("options:remote_ip=$peer")
        for o in "$@"; do opts+=("options:$o"); done
        ovsv "$name" "$side" -- --if-exists del-port sockctl-oint sockctl-tnl \
            -- add-port sockctl-oint sockctl-tnl -- set interface sockctl-tnl type="$type" "${opts[@]}"
    done
    wait_for 10 nsx "ovs-$name-a" ping -c 1 -W 1 198.51.100.2 || { warn "$name: no answer through the $type tunnel"; return 1; }
}

# ovs_traffic NAME PINGS [tcp]: pings through the tunnel, and a short TCP exchange if asked.
ovs_traffic() {
    nsx "ovs-$1-a" ping -c "$2" -i 0.2 -W 2 198.51.100.2 | sed -n 's/^/   ping: /; /packets transmitted/p' >&2
    [ "${3:-}" = tcp ] || return 0
    spawn "ovs-$1-b" $PYTHON "$here/traffic.py" sink --host 198.51.100.2 --port 7000
    local sink=$LAST_PID
    sleep 0.5
    nsx "ovs-$1-a" $PYTHON "$here/traffic.py" bulk --host 198.51.100.2 --port 7000 --bytes 600
    wait "$sink" 2>/dev/null || true
}

scenario_geneve() {
    ovs_pair geneve
    # From the start: OVS's own ARP for the underlay, the first ping's ARP inside the tunnel.
    capture geneve ovs-geneve-a sockctl-ovA udp port 6081 or arp
    ovs_tunnel geneve geneve key=7
    ovs_traffic geneve 3 tcp
    # VNI 8 with an outer UDP checksum and a Geneve option (class 0xffff, type 0x01, 4 bytes; a
    # value per side), set by an OpenFlow rule on traffic from the local port.
    ovs_tunnel geneve geneve key=8 csum=true
    local side value
    for side in a b; do
        [ $side = a ] && value=0x5ca1ab1e || value=0x0b5e55ed
        ovs-ofctl add-tlv-map "unix:$work/ovs-geneve-$side/sockctl-oint.mgmt" "{class=0xffff,type=0x01,len=4}->tun_metadata0"
        ovs-ofctl add-flow "unix:$work/ovs-geneve-$side/sockctl-oint.mgmt" \
            "priority=10,in_port=LOCAL,actions=set_field:$value->tun_metadata0,NORMAL"
    done
    ovs_traffic geneve 3
    publish geneve
}

scenario_gre() {
    ovs_pair gre
    # Ethernet over GRE (0x6558) with a key; then with a checksum; then ERSPAN type II
    # (version 1) and type III (version 2) carrying the same traffic. (OVS's seq=true loses
    # packets on its own receive side, so no sequence numbers.)
    capture gre ovs-gre-a sockctl-ovA proto gre or arp
    ovs_tunnel gre gre key=1234
    ovs_traffic gre 3 tcp
    ovs_tunnel gre gre key=5678 csum=true
    ovs_traffic gre 2
    ovs_tunnel gre erspan key=1 erspan_ver=1 erspan_idx=1
    ovs_traffic gre 2
    ovs_tunnel gre erspan key=2 erspan_ver=2 erspan_dir=1 erspan_hwid=4
    ovs_traffic gre 2
    publish gre
}

scenario_igmp() {
    need python3-minimal
    netns mc-br mc-host
    veth mc-br sockctl-mcP mc-host sockctl-mcH
    # A bridge with the IGMP/MLD querier on (queries every 2 s; startup queries at once).
    ip -n sockctl-mc-br link add sockctl-br0 type bridge mcast_snooping 1 mcast_querier 1 \
        mcast_igmp_version 3 mcast_mld_version 2 mcast_query_interval 200 mcast_startup_query_interval 100
    ip -n sockctl-mc-br link set sockctl-mcP master sockctl-br0
    ip -n sockctl-mc-br addr add 192.0.2.1/24 dev sockctl-br0
    ip -n sockctl-mc-host addr add 192.0.2.2/24 dev sockctl-mcH
    capture igmp mc-host sockctl-mcH "igmp or (ip6 and ip6[6] == 0)"
    ip -n sockctl-mc-br link set sockctl-br0 up
    sleep 1
    nsx mc-host $apps mcast --group 239.1.2.3 --ifname sockctl-mcH --seconds 1          # IGMPv3
    nsx mc-host sysctl -q -w net.ipv4.conf.sockctl-mcH.force_igmp_version=2
    nsx mc-host $apps mcast --group 239.4.5.6 --ifname sockctl-mcH --seconds 1          # IGMPv2
    nsx mc-host $apps mcast --group ff15::1:2 --ifname sockctl-mcH --seconds 1          # MLDv2
    nsx mc-host sysctl -q -w net.ipv6.conf.sockctl-mcH.force_mld_version=1
    nsx mc-host $apps mcast --group ff15::3:4 --ifname sockctl-mcH --seconds 1          # MLDv1
    sleep 1
    publish igmp
}

scenario_mdns() {
    need avahi-daemon dnsutils
    version "$(avahi-daemon --version 2>&1)"
    netns mdns-a mdns-b
    veth mdns-a sockctl-mdA mdns-b sockctl-mdB
    ip -n sockctl-mdns-a addr add 192.0.2.1/24 dev sockctl-mdA
    ip -n sockctl-mdns-b addr add 192.0.2.2/24 dev sockctl-mdB
    ip -n sockctl-mdns-b route add 224.0.0.0/4 dev sockctl-mdB
    {
        echo "[server]"
        echo "host-name=sockctl-golden"
        echo "domain-name=local"
        echo "use-ipv4=yes"
        echo "use-ipv6=yes"
        echo "allow-interfaces=sockctl-mdA"
        echo "enable-dbus=no"
        echo "ratelimit-interval-usec=1000000"
        echo "ratelimit-burst=1000"
        echo "[publish]"
        echo "publish-hinfo=yes"
        echo "publish-workstation=yes"
        echo "[reflector]"
        echo "[rlimits]"
    } >"$work/avahi-daemon.conf"
    mkdir_run /run/avahi-daemon
    capture mdns mdns-b sockctl-mdB udp port 5353
    spawn mdns-a avahi-daemon --no-drop-root --no-chroot --no-rlimits -f "$work/avahi-daemon.conf" 2>"$work/avahi.log"
    local avahi=$LAST_PID
    wait_for 15 grep -q "Server startup complete" "$work/avahi.log" || { cat "$work/avahi.log" >&2; return 1; }
    local d="dig +tries=1 +timeout=1 -p 5353"
    nsx mdns-b $d @224.0.0.251 sockctl-golden.local A | sed -n 's/^/   dig: /; /ANSWER SECTION/,+1p' >&2 || true
    nsx mdns-b $d @224.0.0.251 -x 192.0.2.1 >/dev/null || true
    nsx mdns-b $d @224.0.0.251 _workstation._tcp.local PTR >/dev/null || true
    nsx mdns-b $d @224.0.0.251 sockctl-golden.local HINFO >/dev/null || true
    nsx mdns-b $d @224.0.0.251 nosuch.local A >/dev/null || true
    local ifindex  # dig takes a numeric scope only
    ifindex=$(nsx mdns-b cat /sys/class/net/sockctl-mdB/ifindex)
    nsx mdns-b $d "@ff02::fb%$ifindex" sockctl-golden.local AAAA >/dev/null || true
    kill -TERM "$avahi"   # goodbye packets (TTL 0)
    wait "$avahi" 2>/dev/null || true
    publish mdns
}

scenario_syslog() {
    need bsdutils socat
    version "$(logger --version)"
    netns log-srv log-cli
    veth log-srv sockctl-logS log-cli sockctl-logC
    ip -n sockctl-log-srv addr add 192.0.2.1/24 dev sockctl-logS
    ip -n sockctl-log-srv addr add 2001:db8::1/64 dev sockctl-logS nodad
    ip -n sockctl-log-cli addr add 192.0.2.2/24 dev sockctl-logC
    ip -n sockctl-log-cli addr add 2001:db8::2/64 dev sockctl-logC nodad
    spawn log-srv socat -u UDP6-RECV:514,ipv6only=0 OPEN:"$work/syslog.txt",creat,append
    wait_for 10 nsx log-srv sh -c 'ss -Hlun | grep -q ":514 "' || return 1
    capture syslog log-cli sockctl-logC udp port 514
    local l=(logger -d -P 514 -n 192.0.2.1 -t sockctl)
    nsx log-cli "${l[@]}" --rfc3164 -p local0.notice "an RFC 3164 message"
    nsx log-cli "${l[@]}" --rfc3164 -p auth.err -i "auth error with a pid"
    nsx log-cli "${l[@]}" --rfc5424 -p daemon.info "an RFC 5424 message"
    nsx log-cli "${l[@]}" --rfc5424 -p user.debug --msgid ID47 --sd-id 'exampleSDID@32473' \
        --sd-param 'iut="3"' --sd-param 'eventSource="Application"' "with structured data"
    nsx log-cli "${l[@]}" --rfc5424=notq,notime -p kern.emerg "no time, no time quality"
    nsx log-cli logger -d -P 514 -n 2001:db8::1 -t sockctl -p mail.warning "over IPv6"
    publish syslog
}

scenario_lldp() {
    need lldpd
    version "lldpd $(lldpd -v 2>&1)"
    mkdir_run /run/lldpd
    netns lldp-a lldp-b
    veth lldp-a sockctl-llA lldp-b sockctl-llB
    ip -n sockctl-lldp-a addr add 192.0.2.1/24 dev sockctl-llA
    ip -n sockctl-lldp-a addr add 2001:db8::1/64 dev sockctl-llA nodad
    ip -n sockctl-lldp-b addr add 192.0.2.2/24 dev sockctl-llB
    local side
    for side in A B; do
        {
            echo "configure system hostname sockctl-golden-$side"
            echo "configure lldp tx-interval 1"
        } >"$work/lldpd-$side.conf"
    done
    capture lldp lldp-b sockctl-llB "ether proto 0x88cc or ether dst 01:00:0c:cc:cc:cc"
    # a: LLDP with LLDP-MED (network connectivity device); b: LLDP and CDPv2 (forced).
    spawn lldp-a lldpd -d -I sockctl-llA -u "$work/lldpd-a.socket" -O "$work/lldpd-A.conf" -M 4 \
        -S "sockctl golden A" 2>"$work/lldpd-a.log"
    spawn lldp-b lldpd -d -ccc -I sockctl-llB -u "$work/lldpd-b.socket" -O "$work/lldpd-B.conf" \
        -S "sockctl golden B" 2>"$work/lldpd-b.log"
    sleep 4
    publish lldp
}

scenario_stp() {
    netns stp-a stp-b
    veth stp-a sockctl-stA stp-b sockctl-stB
    local side prio
    for side in a b; do
        [ $side = a ] && prio=4096 || prio=32768
        ip -n "sockctl-stp-$side" link add sockctl-br type bridge stp_state 1 priority $prio \
            hello_time 100 forward_delay 200 max_age 600
        ip -n "sockctl-stp-$side" link set "sockctl-st${side^^}" master sockctl-br
    done
    capture stp stp-b sockctl-stB stp
    ip -n sockctl-stp-a link set sockctl-br up
    ip -n sockctl-stp-b link set sockctl-br up
    sleep 7   # listening, learning, forwarding, topology change
    publish stp
}

# ---------------------------------------------------------------------------------- main

ALL=(dns dhcp ntp ssh redis http websocket tls h2 vxlan geneve gre igmp mdns syslog lldp stp)
requested=("$@")
[ ${#requested[@]} -eq 0 ] && requested=("${ALL[@]}")
for s in "${requested[@]}"; do
    declare -F "scenario_$s" >/dev/null || { warn "unknown scenario $s (known: ${ALL[*]})"; exit 2; }
done

start=$(date +%s)
need ethtool || warn "ethtool did not install: captures on veths will show offloaded (bad) checksums"
ETHTOOL=$(command -v ethtool || true)
version "$("$TCPDUMP" --version 2>&1 | head -n 1), kernel $(uname -r), Debian $(cat /etc/debian_version 2>/dev/null)"
made=() skipped=()
for s in "${requested[@]}"; do
    echo "== $s" >&2
    # Each scenario in a subshell with set -e (not inside an `if`, which would turn -e off):
    # its failure ends that scenario only.
    (set -e; trap 'exit 130' INT TERM; "scenario_$s")
    status=$?
    [ $status -eq 130 ] && { warn "interrupted"; exit 130; }
    if [ $status -eq 0 ]; then made+=("$s"); else warn "$s: FAILED ($status), live-app-$s.pcap skipped"; skipped+=("$s"); fi
    stop_all
    rm -f "$work/$s.pcap"
done
echo "made: ${made[*]:-none}" >&2
echo "skipped: ${skipped[*]:-none}" >&2
echo "took $(($(date +%s) - start)) s; now run scripts/regenerate-goldens.sh" >&2
[ ${#skipped[@]} -eq 0 ]
