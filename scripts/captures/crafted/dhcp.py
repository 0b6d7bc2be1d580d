"""BOOTP/DHCP, DHCPv6, NTP and syslog: the messages and options tcpdump 4.99.3 decodes, every
value format it has, and the malformed and cut packets that reach its `[|bootp]`, `[|dhcp6]`,
`[|ntp]`, `[|syslog]` and `(invalid)` paths (the comment on each packet says which).
"""
import struct

from craft import *  # noqa: F403

ANY4, BCAST4 = bytes(4), bytes([255, 255, 255, 255])
SERVER4, CLIENT4, RELAY4 = bytes([192, 0, 2, 1]), bytes([192, 0, 2, 77]), bytes([198, 51, 100, 1])
COOKIE = bytes([99, 130, 83, 99])


def ip4(a):
    return bytes(int(x) for x in a.split("."))


def ip6(text):
    head, _, tail = text.partition("::")
    def groups(part):
        return [int(g, 16) for g in part.split(":")] if part else []
    h, t = groups(head), groups(tail)
    return struct.pack("!8H", *(h + [0] * (8 - len(h) - len(t)) + t))


def udp4(sport, dport, payload, src=V4_A, dst=V4_B, length=None):
    return ether(ipv4(udp(sport, dport, payload, length=length, src=src, dst=dst), proto=17, src=src, dst=dst))


def udp6(sport, dport, payload, src=V6_A, dst=V6_B):
    return ether(ipv6(udp(sport, dport, payload, src=src, dst=dst, v6=True), nh=17, src=src, dst=dst), ETHERTYPE_IPV6)


# ---------------------------------------------------------------- BOOTP / DHCPv4

def o(tag, data):
    return bytes([tag, len(data)]) + data


def bootp(op=1, htype=1, hlen=6, hops=0, xid=0x3903F326, secs=0, flags=0, ciaddr=ANY4, yiaddr=ANY4,
          siaddr=ANY4, giaddr=ANY4, chaddr=MAC_A, sname=b"", file=b"", options=b"", magic=COOKIE, vendor=None):
    header = struct.pack("!BBBBIHH4s4s4s4s", op, htype, hlen, hops, xid, secs, flags, ciaddr, yiaddr, siaddr, giaddr)
    area = vendor if vendor is not None else magic + options
    return header + chaddr.ljust(16, b"\0") + sname.ljust(64, b"\0")[:64] + file.ljust(128, b"\0")[:128] + area


def dhcp_out(message, src=ANY4, dst=BCAST4, sport=68, dport=67, length=None):
    return udp4(sport, dport, message, src=src, dst=dst, length=length)


def dhcp_in(message, src=SERVER4, dst=CLIENT4):
    return udp4(67, 68, message, src=src, dst=dst)


def bootp_cases():
    msg = lambda t: o(53, bytes([t]))
    end = b"\xff"
    prl = o(55, bytes([1, 3, 6, 15, 28, 42, 121, 249, 0, 255, 84, 252, 43]))
    client = o(61, b"\x01" + MAC_A)
    sid = o(54, SERVER4)
    p = []
    # DISCOVER: client-ID, MSZ, parameter request list with unnamed tags, vendor class, hostname, padding
    p.append(dhcp_out(bootp(options=msg(1) + client + o(57, struct.pack("!H", 1500)) + prl
                            + o(60, b"sockctl-test 1.0") + o(12, b"client-a") + end + bytes(12))))
    # OFFER (a reply: no "from"), broadcast flag, the address and time options
    p.append(dhcp_in(bootp(op=2, flags=0x8000, yiaddr=CLIENT4, siaddr=SERVER4, options=msg(2) + sid
                           + o(51, struct.pack("!I", 86400)) + o(58, struct.pack("!I", 43200))
                           + o(59, struct.pack("!I", 75600)) + o(1, ip4("255.255.255.0"))
                           + o(3, SERVER4 + ip4("192.0.2.2")) + o(6, ip4("192.0.2.53") + ip4("198.51.100.53"))
                           + o(15, b"example.test") + o(28, ip4("192.0.2.255")) + o(42, ip4("192.0.2.123")) + end)))
    # REQUEST: requested IP, client FQDN with flags and result codes, secs and a hop count
    p.append(dhcp_out(bootp(secs=3, hops=1, options=msg(3) + o(50, CLIENT4) + sid
                            + o(81, b"\x05\x00\xffclient-a.example.test") + prl + end)))
    # ACK with every plain value format and the special ones
    p.append(dhcp_in(bootp(op=2, yiaddr=CLIENT4, options=msg(5) + sid
                           + o(2, struct.pack("!i", -18000)) + o(26, struct.pack("!H", 1400)) + o(23, b"\x40")
                           + o(19, b"\x00\x01\x02") + o(46, b"\x08") + o(52, b"\x03")
                           + o(33, ip4("203.0.113.0") + SERVER4 + ip4("198.51.100.0") + RELAY4)
                           + o(121, b"\x00" + SERVER4 + b"\x18\xc6\x33\x64" + SERVER4 + b"\x20\xcb\x00\x71\x07" + RELAY4
                               + b"\x08\x0a" + SERVER4 + b"\x11\xcb\x00\x71" + SERVER4)
                           + o(249, b"\x00" + RELAY4)
                           + o(25, struct.pack("!3H", 68, 296, 576)) + o(43, b"\x01\x04\xc0\x00\x02\x01")
                           + o(12, b"ho\x07st\x7f\xe9\n\t") + o(116, b"\x01") + o(91, struct.pack("!i", -5))
                           + o(93, struct.pack("!H", 7)) + o(97, bytes(range(17))) + o(150, SERVER4 + RELAY4)
                           + o(161, b"https://mud.example.test/x") + o(24, b"\x00\x00\x02\x58\xaa\xbb")
                           + o(21, SERVER4 + ip4("255.255.255.0") + b"\x01") + o(118, ip4("192.0.2.0"))
                           + o(100, b"EST5EDT") + o(101, b"Europe/Zurich") + o(114, b"http://x.test/")
                           + o(66, b"tftp.example.test") + o(67, b"pxelinux.0") + o(98, b"uap") + o(88, b"TZ")
                           + o(47, b"scope") + o(40, b"nis") + o(64, b"\x00\x01") + o(65, SERVER4) + end)))
    # NAK: message text, server name and boot file
    p.append(dhcp_in(bootp(op=2, sname=b"server-1", file=b"boot/pxelinux.0",
                           options=msg(6) + sid + o(56, b"address not available") + end)))
    # RELEASE and INFORM from a configured client; INFORM has a user class
    p.append(dhcp_out(bootp(ciaddr=CLIENT4, options=msg(7) + sid + end), src=CLIENT4, dst=SERVER4))
    p.append(dhcp_out(bootp(ciaddr=CLIENT4, options=msg(8) + o(77, b"\x04abcd\x02xy") + prl + end), src=CLIENT4, dst=SERVER4))
    # DECLINE, and the message types of RFC 4388 and an unknown one
    for t in (4, 10, 11, 12, 13, 99):
        p.append(dhcp_out(bootp(options=msg(t) + end)))
    # relayed: gateway address, hops, agent information with every sub-option kind
    agent = (b"\x01\x05eth0\x01" + b"\x02\x06" + MAC_B + b"\x06\x03sub" + b"\x09\x13" + bytes(range(19)))
    p.append(dhcp_out(bootp(hops=1, giaddr=RELAY4, options=msg(1) + o(82, agent) + end), src=RELAY4, dst=SERVER4, sport=67))
    # agent sub-option longer than the option; then one left-over byte (trailing data length 1)
    p.append(dhcp_out(bootp(giaddr=RELAY4, options=o(82, b"\x01\x09abc") + o(82, b"\x02\x02ab\x05") + end), src=RELAY4, dst=SERVER4, sport=67))
    # client identifiers: text, ieee802, an unnamed hardware type, empty
    p.append(dhcp_out(bootp(options=o(61, b"\x00client one") + o(61, b"\x06\x01\x02") + o(61, b"\x63\xaa") + o(61, b"") + end)))
    # unknown tags: odd length (bytes), 2 mod 4 (shorts), multiple of 4 (longs), empty
    p.append(dhcp_out(bootp(options=o(200, b"\x01\x02\x03") + o(201, b"\x00\x01\x00\x02\x00\x03")
                            + o(202, b"\x00\x00\x00\x2a") + o(203, b"") + o(53, b"\x01\x02") + end)))
    # option overload (52): file, sname, unknown; NetBIOS node type unknown and empty; booleans
    p.append(dhcp_out(bootp(options=o(52, b"\x01") + o(52, b"\x02") + o(52, b"\x07") + o(52, b"")
                            + o(46, b"\x03") + o(46, b"") + o(46, b"\x01\x02") + o(31, b"\x01") + end)))
    # malformed special options: short FQDN, MBZ nibble, short and bad classless routes, user classes
    p.append(dhcp_out(bootp(options=o(81, b"\x00\x00") + o(81, b"\xf8\x00\x00") + o(121, b"\x00\x01\x02\x03")
                            + o(121, b"\x21\x00\x00\x00\x00\x00") + o(121, b"\x18\xc0\x00\x02\x01\x02\x03\x04\x08")
                            + o(77, b"\x01") + o(77, b"\x00\x00") + o(77, b"\x05ab") + end)))
    # no END: the options run to the end of the datagram
    p.append(dhcp_out(bootp(options=msg(1) + client + o(12, b"no-end"))))
    # -vvv: runs of PAD, END followed by padding and an option tcpdump shows past END
    p.append(dhcp_out(bootp(options=b"\x00\x00\x00" + msg(3) + b"\x00" + end + b"\x00\x00" + o(12, b"after") + bytes(3))))
    # an option length past the datagram's end: [|bootp]
    p.append(dhcp_out(bootp(options=msg(1) + b"\x0c\x40short")))
    # CMU vendor area (flags valid mask, then unknown flag bits), an unknown magic, zero vendor area
    cmu = b"CMU\0" + struct.pack("!I", 0x01000000) + ip4("255.255.255.0") + SERVER4 + ip4("192.0.2.53") + bytes(4) \
        + ip4("192.0.2.54") + bytes(4) + ip4("192.0.2.123") + bytes(4) + bytes(24)
    p.append(dhcp_in(bootp(op=2, vendor=cmu)))
    p.append(dhcp_in(bootp(op=2, vendor=b"CMU\0" + struct.pack("!I", 0x06000000) + bytes(56))))
    p.append(dhcp_in(bootp(op=2, vendor=b"\x12\x34\x56\x78" + bytes(60))))
    p.append(dhcp_in(bootp(op=2, vendor=bytes(64))))
    # not Ethernet: token ring htype 6, a 16-byte hardware address, an unknown op; xid 0, flags 0x8001
    p.append(dhcp_out(bootp(htype=6, options=msg(1) + end)))
    p.append(dhcp_out(bootp(hlen=16, chaddr=bytes(range(16)), options=msg(1) + end)))
    p.append(dhcp_out(bootp(op=3, xid=0, flags=0x8001, secs=65535, options=msg(1) + end)))
    # a server name filling its 64 bytes without a NUL: tcpdump prints the text then [|bootp]
    p.append(dhcp_in(bootp(op=2, sname=b"s" * 64, options=msg(2) + end)))
    p.append(dhcp_in(bootp(op=2, file=b"f" * 128, options=msg(2) + end)))
    # plain BOOTP (no DHCP options, RFC 1048 cookie and END only)
    p.append(dhcp_in(bootp(op=2, yiaddr=CLIENT4, siaddr=SERVER4, file=b"vmunix", options=end)))
    # cut by the capture: in the op/htype (longjmp), in chaddr (longjmp even without -v),
    # before secs (explicit check), in sname, before the cookie, in an option's length byte
    # (longjmp), in an option's value (explicit check), in a relay agent sub-option
    full = dhcp_out(bootp(sname=b"srv", options=msg(1) + client + o(12, b"client-a") + end))
    base = 14 + 20 + 8
    for cut in (1, 20, 34, 9, 60, 237, 248, 250, 256):
        p.append(Record(full, caplen=base + cut))
    reply = dhcp_in(bootp(op=2, options=msg(2) + end))
    p.append(Record(reply, caplen=base + 9))
    agent_full = dhcp_out(bootp(giaddr=RELAY4, options=o(82, agent) + end), src=RELAY4, dst=SERVER4, sport=67)
    p.append(Record(agent_full, caplen=base + 240 + 14))
    # a datagram shorter than the BOOTP header (the IP length ends it): request and reply
    p.append(dhcp_out(bootp(options=b"")[:20]))
    p.append(dhcp_in(bootp(op=2, options=b"")[:12]))
    # UDP length shorter than the datagram: tcpdump prints the UDP length but reads to the IP end
    p.append(dhcp_out(bootp(options=msg(1) + o(12, b"beyond-udp") + end), length=8 + 240 + 3))
    return p


# ---------------------------------------------------------------- DHCPv6

def d6(t, data):
    return struct.pack("!HH", t, len(data)) + data


def dhcp6(msgtype, options, xid=0x1E291D):
    return struct.pack("!I", (msgtype << 24) | xid) + options


def relay6(msgtype, options, hops=0, link="2001:db8::1", peer="2001:db8::10"):
    return bytes([msgtype, hops]) + ip6(link) + ip6(peer) + options


def dns_name(*labels):
    return b"".join(bytes([len(x)]) + x for x in labels) + b"\0"


def dhcp6_cases():
    duid_llt = d6(1, struct.pack("!HHI", 1, 1, 0x2B2C2D2E) + MAC_A)
    duid_ll = d6(2, struct.pack("!HH", 3, 1) + MAC_B)
    duid_en = d6(1, struct.pack("!HI", 2, 9) + b"\x0a\x0b\x0c\x0d")
    ia_addr = d6(5, ip6("2001:db8::100") + struct.pack("!II", 3600, 7200))
    status = lambda code, text=b"": d6(13, struct.pack("!H", code) + text)
    c, s = 546, 547
    p = []
    # SOLICIT: client-ID (DUID-LLT), IA_NA without sub-options, elapsed time, option request, rapid commit
    p.append(udp6(c, s, dhcp6(1, duid_llt + d6(3, struct.pack("!III", 1, 0, 0)) + d6(8, b"\x00\x00")
                             + d6(6, struct.pack("!7H", 23, 24, 56, 64, 31, 999, 82)) + d6(14, b"") + d6(20, b""))))
    # ADVERTISE: server-ID (DUID-LL), IA_NA > IA_ADDR > status code, preference, DNS servers and search list
    p.append(udp6(s, c, dhcp6(2, duid_ll + duid_en + d6(3, struct.pack("!III", 1, 1800, 2880) + d6(5, ip6("2001:db8::100")
                             + struct.pack("!II", 3600, 7200) + status(0, b"ok"))) + d6(7, b"\xff")
                             + d6(23, ip6("2001:db8::53") + ip6("2001:db8::35"))
                             + d6(24, dns_name(b"example", b"test") + dns_name(b"lab", b"example", b"test")) + status(0))))
    # REQUEST: IA_PD > IA_PD-prefix, IA_TA > IA_ADDR, server-IDs of an unknown DUID type and too short
    p.append(udp6(c, s, dhcp6(3, duid_llt + d6(2, b"\x00\x07abc") + d6(2, b"\x00") + d6(2, b"\x00\x01\x00")
                             + d6(2, b"\x00\x02\x00") + d6(2, b"\x00\x03\x00")
                             + d6(25, struct.pack("!III", 7, 100, 200) + d6(26, struct.pack("!IIB", 300, 400, 56)
                                                                         + ip6("2001:db8:1200::")))
                             + d6(4, struct.pack("!I", 9) + ia_addr))))
    # REPLY: status codes, SIP, SNTP, NIS, BCMCS, PANA, NTP server sub-options, lifetime, AFTR name, time zones, MUD URL
    ntp = (struct.pack("!HH", 1, 16) + ip6("2001:db8::123") + struct.pack("!HH", 2, 16) + ip6("ff02::101")
           + struct.pack("!HH", 3, 17) + dns_name(b"ntp", b"example", b"test")[:17] + struct.pack("!HH", 1, 4) + b"abcd"
           + struct.pack("!HH", 9, 2) + b"zz")
    p.append(udp6(s, c, dhcp6(7, duid_ll + d6(3, struct.pack("!III", 2, 0, 0) + status(2, b"none")) + status(300)
                             + status(42) + status(6) + d6(21, dns_name(b"sip", b"example", b"test"))
                             + d6(22, ip6("2001:db8::5060")) + d6(31, ip6("2001:db8::123")) + d6(27, ip6("2001:db8::27"))
                             + d6(28, ip6("2001:db8::28")) + d6(34, ip6("2001:db8::34")) + d6(40, ip6("2001:db8::40"))
                             + d6(56, ntp) + d6(32, struct.pack("!I", 86400)) + d6(64, dns_name(b"aftr", b"example", b"test"))
                             + d6(41, b"EST5EDT,M3.2.0,M11.1.0") + d6(42, b"Europe/Zurich") + d6(112, b"https://mud.test/a\0b")
                             + d6(29, dns_name(b"nis")) + d6(39, b"\x01\x00") + d6(15, b"\x00\x02ab") + d6(16, b"\x00\x00\x00\x09")
                             + d6(17, b"\x00\x00\x00\x09\x00\x01\x00\x00") + d6(12, ip6("2001:db8::1")))))
    # RELAY-FORW carrying a SOLICIT, with interface-ID, remote-ID and subscriber-ID
    inner = dhcp6(1, duid_llt + d6(8, b"\x00\x64"))
    p.append(udp6(s, s, relay6(12, d6(18, b"eth0/1/2/3/4/5") + d6(37, struct.pack("!I", 9) + b"remote-identity")
                               + d6(38, b"sub") + d6(9, inner)), src=ip6("2001:db8::1"), dst=ip6("2001:db8::2")))
    # RELAY-REPLY > RELAY-REPLY > ADVERTISE, options after the nested message
    adv = dhcp6(2, duid_ll + d6(3, struct.pack("!III", 1, 1800, 2880) + ia_addr))
    p.append(udp6(s, s, relay6(13, d6(9, relay6(13, d6(9, adv) + d6(18, b"if2"), hops=1)) + d6(18, b"if1")),
                  src=ip6("2001:db8::2"), dst=ip6("2001:db8::1")))
    # RECONFIGURE: renew, inf-req, unknown; reconfigure-key authentication; delayed authentication with a realm
    auth_reconf = d6(11, b"\x03\x01\x00" + bytes(range(8)) + b"\x01" + bytes(range(16)))
    auth_delayed = d6(11, b"\x02\x01\x00" + bytes(8) + b"realm" + struct.pack("!I", 0xAABBCCDD) + bytes(range(16)))
    p.append(udp6(s, c, dhcp6(10, duid_ll + d6(19, b"\x05") + auth_reconf)))
    p.append(udp6(s, c, dhcp6(10, d6(19, b"\x0b") + auth_delayed + d6(11, b"\x02\x01\x00" + bytes(8)))))
    p.append(udp6(s, c, dhcp6(10, d6(19, b"\x07") + d6(19, b"") + d6(11, b"\x03\x01\x01" + bytes(8) + b"\x02" + bytes(16))
                             + d6(11, b"\x03\x02\x05" + bytes(8) + b"\x09" + bytes(16)) + d6(11, b"\x03\x01\x00" + bytes(9))
                             + d6(11, b"\x07\x01\x00" + bytes(8)) + d6(11, b"\x02\x01\x00" + bytes(12)) + d6(11, bytes(10)))))
    # the other message types and an unknown one
    for t in (4, 5, 6, 8, 9, 11, 99):
        p.append(udp6(c, s, dhcp6(t, duid_llt)))
    # LEASEQUERY by address with a sub-option; LEASEQUERY-REPLY with client data, relay data, client link
    p.append(udp6(c, s, dhcp6(14, d6(44, b"\x01" + ip6("2001:db8::100") + ia_addr) + d6(44, b"\x02" + ip6("::"))
                             + d6(44, b"\x05" + bytes(16)))))
    p.append(udp6(s, c, dhcp6(15, d6(45, duid_llt + ia_addr + d6(46, struct.pack("!I", 600)))
                             + d6(47, ip6("2001:db8::1") + b"relay-message-bytes") + d6(48, ip6("2001:db8::1")) + d6(45, b""))))
    # wrong lengths: every " ?)" case
    p.append(udp6(c, s, dhcp6(1, d6(1, b"\x00") + d6(7, b"\x01\x02") + d6(8, b"\x01") + d6(13, b"\x00") + d6(3, bytes(8))
                             + d6(4, b"\x00") + d6(5, bytes(20)) + d6(25, bytes(4)) + d6(26, bytes(24)) + d6(23, bytes(15))
                             + d6(6, b"\x00\x17\x00") + d6(32, bytes(3)) + d6(46, bytes(5)) + d6(37, b"\x00") + d6(44, bytes(10))
                             + d6(47, bytes(8)) + d6(56, b"\x00") + d6(64, b"\x01a") + d6(41, b"abc") + d6(11, bytes(10)))))
    # names: a compression pointer (tcpdump reads it relative to the option's end), bit labels,
    # the root, a name over 255 characters, AFTR labels past the option
    follow = d6(99, dns_name(b"tail"))
    long_name = dns_name(*([b"x" * 63] * 5))
    p.append(udp6(s, c, dhcp6(7, d6(24, b"\x04head\xc0\x04") + follow + d6(24, b"\x41\x10\xab\xcd\x00\x41\x0c\xab\xc0\x00")
                             + d6(24, b"\x00\x00") + d6(24, long_name) + d6(64, b"\x03ab\x00") + d6(64, b"\x02ab\x09abc"))))
    # a pointer that does not point lower than the one before, a reserved label type, an extended
    # label type, a label cut by the option's end: each ends the list with [|dhcp6]
    p.append(udp6(s, c, dhcp6(7, d6(24, b"\x01a\xc0\x06") + d6(99, b"\x00\x00\xc0\x07"))))
    p.append(udp6(s, c, dhcp6(7, d6(24, b"\x01a\x80") + d6(8, b"\x00\x01"))))
    p.append(udp6(s, c, dhcp6(7, d6(24, b"\x42\x00") + d6(8, b"\x00\x01"))))
    p.append(udp6(s, c, dhcp6(7, d6(24, b"\x05ab"))))
    # nested a long way (LQ-client-data in LQ-client-data ...): the option walk keeps no C stack
    nested = d6(46, struct.pack("!I", 1))
    for _ in range(40):
        nested = d6(45, nested)
    p.append(udp6(s, c, dhcp6(15, nested + d6(8, b"\x00\x01"))))
    # truncation: an option running past the message, a sub-option running past its option
    # (the outer option still closes), three bytes left, an NTP sub-option too long
    p.append(udp6(c, s, dhcp6(1, duid_llt + struct.pack("!HH", 8, 40) + b"\x00\x00")))
    p.append(udp6(c, s, dhcp6(1, d6(3, struct.pack("!III", 1, 2, 3) + struct.pack("!HH", 5, 30) + bytes(6)) + d6(8, b"\x00\x05"))))
    p.append(udp6(c, s, dhcp6(1, d6(8, b"\x00\x05") + b"\x00\x01\x00")))
    p.append(udp6(c, s, dhcp6(7, d6(56, struct.pack("!HH", 1, 40) + bytes(8)))))
    # a relay message whose nested message is shorter than 4 bytes; relayed options past the option
    p.append(udp6(s, s, relay6(12, d6(9, b"\x01\x02") + d6(18, b"x"))))
    p.append(udp6(s, s, relay6(12, d6(9, dhcp6(1, struct.pack("!HH", 8, 9) + b"\x00\x00")) + d6(18, b"x"))))
    # cut by the capture: the header, the relay link address (longjmp), an option value, a nested option
    full = udp6(s, c, dhcp6(2, duid_ll + d6(3, struct.pack("!III", 1, 1800, 2880) + ia_addr) + d6(23, ip6("2001:db8::53"))))
    base = 14 + 40 + 8
    for cut in (2, 6, 12, 30, 50, 70):
        p.append(Record(full, caplen=base + cut))
    relayed = udp6(s, s, relay6(12, d6(9, inner)))
    for cut in (10, 40, 48):
        p.append(Record(relayed, caplen=base + cut))
    names = udp6(s, c, dhcp6(7, d6(24, dns_name(b"example", b"test")) + d6(64, dns_name(b"aftr", b"test"))))
    for cut in (12, 30):
        p.append(Record(names, caplen=base + cut))
    return p


# ---------------------------------------------------------------- NTP

NTP_1970 = 2208988800


def ts64(seconds, fraction=0):
    return struct.pack("!II", seconds & 0xFFFFFFFF, fraction & 0xFFFFFFFF)


def ntp_time(li=0, vn=4, mode=3, stratum=0, poll=0, precision=0, delay=0, dispersion=0, refid=b"\0\0\0\0",
             ref=(0, 0), org=(0, 0), rec=(0, 0), xmt=(0, 0), extra=b""):
    return (struct.pack("!BBbbII", (li << 6) | (vn << 3) | mode, stratum, poll, precision, delay, dispersion) + refid
            + ts64(*ref) + ts64(*org) + ts64(*rec) + ts64(*xmt) + extra)


def ntp_control(vn=2, r=0, e=0, m=0, op=2, seq=68, status=0, assoc=0, offset=0, count=0, data=b"", li=0):
    control = (r << 7) | (e << 6) | (m << 5) | op
    return struct.pack("!BBHHHHH", (li << 6) | (vn << 3) | 6, control, seq, status, assoc, offset, count) + data


def ntp_cases():
    now = NTP_1970 + 1700000000
    t = lambda delta, frac=0: (now + delta, frac)
    p = []
    q = lambda payload, sport=40123, dport=123, **kw: udp4(sport, dport, payload, **kw)
    r = lambda payload: udp4(123, 40123, payload, src=V4_B, dst=V4_A)
    # client, server (stratum 2, IPv4 reference ID), broadcast (stratum 1, text reference ID)
    p.append(q(ntp_time(xmt=t(0, 0x12345678))))
    p.append(r(ntp_time(mode=4, stratum=2, poll=6, precision=-20, delay=0x00010800, dispersion=0x0000FFFF,
                        refid=ip4("192.0.2.123"), ref=t(-64, 0x80000000), org=t(0, 0x12345678),
                        rec=t(0, 0x20000000), xmt=t(1, 0x10000000))))
    p.append(udp4(123, 123, ntp_time(mode=5, stratum=1, poll=4, precision=-29, refid=b"GPS\0", ref=t(-1), xmt=t(0)),
                  dst=bytes([192, 0, 2, 255])))
    # symmetric active and passive, mode 0, the leap indicators, versions 1 to 3
    p.append(q(ntp_time(mode=1, li=1, vn=3, stratum=3, refid=b"\x0a\x0b\x0c\x0d", org=t(5), rec=t(4, 0xF0000000), xmt=t(4, 0xE0000000))))
    p.append(q(ntp_time(mode=2, li=2, vn=2, stratum=15, org=t(5, 0x80000000), rec=t(5, 0x40000000), xmt=t(5, 0xC0000000))))
    p.append(q(ntp_time(mode=0, li=3, vn=1, stratum=16)))
    # the stratum values with their own reference ID text
    p.append(q(ntp_time(stratum=62, refid=ip4("192.0.2.62"))))
    p.append(r(ntp_time(mode=4, stratum=63, refid=ip4("192.0.2.63"))))
    p.append(q(ntp_time(stratum=1, refid=b"\x01\xffX\x00")))
    p.append(q(ntp_time(stratum=200, refid=b"\xde\xad\xbe\xef")))
    # poll intervals: negative, beyond the shown range both ways
    for poll in (-6, -31, -32, 31, 32, 127, -128):
        p.append(q(ntp_time(poll=poll, precision=poll)))
    # timestamps: before 1970, the last second of era 0, seconds 0 with a fraction, leap-year days
    p.append(r(ntp_time(mode=4, stratum=2, ref=(1000000000, 1), org=(0xFFFFFFFF, 0xFFFFFFFF), rec=(0, 0x80000000),
                        xmt=(NTP_1970 + 951782400, 0))))
    p.append(r(ntp_time(mode=4, stratum=2, ref=(NTP_1970 - 86400, 0),
                        org=(NTP_1970 + 1078012800, 1), rec=(NTP_1970 + 1078012799, 2), xmt=(NTP_1970 + 1709251199, 3))))
    p.append(r(ntp_time(mode=4, stratum=2, org=(1, 0), rec=(1, 0), xmt=(1, 0))))
    # the optional fields: key ID, key ID + MD5, key ID + SHA-1, something else, too short (invalid)
    p.append(q(ntp_time(xmt=t(0), extra=struct.pack("!I", 8))))
    p.append(q(ntp_time(xmt=t(0), extra=struct.pack("!I", 9) + bytes(range(16)))))
    p.append(q(ntp_time(xmt=t(0), extra=struct.pack("!I", 10) + bytes(range(20)))))
    p.append(q(ntp_time(xmt=t(0), extra=bytes(12))))
    p.append(q(ntp_time(xmt=t(0))[:47]))
    p.append(q(ntp_time()[:1]))
    # control messages: request, response with data, error and more bits, a count past the end, too short
    p.append(q(ntp_control()))
    p.append(r(ntp_control(r=1, status=0x0618, count=10, data=b"version=4,")))
    p.append(r(ntp_control(r=1, e=1, m=1, op=31, seq=65535, status=0xFFFF, assoc=12345, offset=468, count=0)))
    p.append(r(ntp_control(r=1, count=20, data=b"short")))
    p.append(q(ntp_control()[:11]))
    # mode 7 (private) and a reserved-mode answer with a leap indicator
    p.append(q(bytes([0x17, 0x00, 0x03, 0x2a]) + bytes(188)))
    p.append(r(bytes([0x97, 0x00, 0x03, 0x2a]) + bytes(40)))
    p.append(q(bytes([0x3f])))
    # cut by the capture: the first byte (longjmp), the stratum, the root delay, the reference ID,
    # a timestamp, the key ID (longjmp), the digest, control data, an invalid message
    full = q(ntp_time(stratum=2, refid=ip4("192.0.2.123"), org=t(0), rec=t(0, 5), xmt=t(0, 7), extra=struct.pack("!I", 9) + bytes(16)))
    base = 14 + 20 + 8
    for cut in (0, 1, 3, 6, 14, 30, 45, 50, 60):
        p.append(Record(full, caplen=base + cut))
    p.append(Record(q(ntp_time(extra=struct.pack("!I", 9))), caplen=base + 50))
    p.append(Record(r(ntp_control(r=1, count=10, data=b"version=4,")), caplen=base + 15))
    p.append(Record(r(ntp_control(r=1, count=10, data=b"version=4,")), caplen=base + 8))
    p.append(Record(q(ntp_time()[:40]), caplen=base + 20))
    p.append(Record(q(ntp_control(count=30, data=bytes(20))), caplen=base + 20))
    return p


# ---------------------------------------------------------------- syslog

def syslog_cases():
    p = []
    s = lambda text, **kw: udp4(40514, 514, text, **kw)
    p.append(s(b"<13>Nov 14 22:13:20 host-a sockctl: test message"))
    for pri in (b"0", b"1", b"34", b"86", b"120", b"165", b"191", b"999", b"", b"007"):
        p.append(s(b"<" + pri + b">message with priority " + pri))
    # not a priority: too many digits, no '<', a letter, nothing after '<'
    p.append(s(b"<1234>too many digits"))
    p.append(s(b"no priority"))
    p.append(s(b"<1x>letter"))
    p.append(s(b"<"))
    # control characters, 8-bit bytes, CR LF and a NUL in the text; nothing after '>'
    p.append(s(b"<30>tab\there\r\nbell\x07 high \xe9\xff nul\x00end"))
    p.append(s(b"<30>"))
    # a long message (-vv: several hex lines); from the server side port
    p.append(udp4(514, 514, b"<78>" + b"cron job finished; " * 6, src=V4_B, dst=V4_A))
    # cut by the capture: inside the text (-v prints it up to the cut), inside the priority
    full = s(b"<165>Nov 14 22:13:20 host-a app[42]: cut inside the message text")
    base = 14 + 20 + 8
    for cut in (30, 3, 0):
        p.append(Record(full, caplen=base + cut))
    return p


def captures():
    return {
        "crafted-dhcp.pcap": (1, bootp_cases()),
        "crafted-dhcp6.pcap": (1, dhcp6_cases()),
        "crafted-ntp.pcap": (1, ntp_cases()),
        "crafted-syslog.pcap": (1, syslog_cases()),
    }
