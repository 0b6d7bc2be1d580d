"""Tunnels and the rest: VXLAN, Geneve, GRE (with PPTP's PPP), IGMP (with mtrace and DVMRP),
SCTP, DCCP, and on Ethernet 802.3/LLC/SNAP, STP/RSTP/MSTP/SPB, CDP, DTP, UDLD and LLDP; LLC in Linux cooked
captures. Each protocol has ordinary messages, the variants its printer distinguishes, packets
cut by the capture inside its header and malformed lengths.

Not here, because sockctl does not decode them (tcpdump does): PPP configuration options (-v),
VTP, IPX and OSI over LLC, MPLS in GRE, ForCES and M3UA in SCTP, PIMv1 in IGMP.
"""
import struct

from craft import *

LLDP_MULTICAST = bytes.fromhex("0180c200000e")
STP_MULTICAST = bytes.fromhex("0180c2000000")
V4_C, V4_D = bytes([192, 0, 2, 30]), bytes([198, 51, 100, 40])
GROUP = bytes([239, 1, 2, 3])


def arp(op=1):
    return struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, op, MAC_A, V4_C, bytes(6) if op == 1 else MAC_B, V4_D)


def inner_tcp(flags=SYN, payload=b"", v6=False):
    if v6:
        return ipv6(tcp(40000, 6969, 1000, 0, flags, payload=payload, v6=True))
    return ipv4(tcp(40000, 6969, 1000, 2000, flags, options=pad4(MSS + SACKOK) if flags == SYN else b"",
                    payload=payload, src=V4_C, dst=V4_D), src=V4_C, dst=V4_D)


def inner_icmp():
    body = struct.pack("!BBHHH", 8, 0, 0, 0x1234, 1) + b"tunnel"
    body = body[:2] + struct.pack("!H", csum(body)) + body[4:]
    return ipv4(body, proto=1, src=V4_C, dst=V4_D)


def udp4(sport, dport, payload, **kw):
    return ether(ipv4(udp(sport, dport, payload, **kw), proto=17))


def udp6(sport, dport, payload):
    return ether(ipv6(udp(sport, dport, payload, src=V6_A, dst=V6_B, v6=True), nh=17), ETHERTYPE_IPV6)


# ---------------------------------------------------------------- VXLAN and Geneve

def vxlan(inner, flags=0x08, vni=100):
    return struct.pack("!B3s3sB", flags, b"\0\0\0", vni.to_bytes(3, "big"), 0) + inner


def geneve(inner, proto=0x6558, options=b"", flags=0, vni=10, version=0, reserved=0, optlen=None):
    optlen = optlen if optlen is not None else len(options) // 4
    return struct.pack("!BBH3sB", (version << 6) | optlen, flags, proto, vni.to_bytes(3, "big"), reserved) + options + inner


def geneve_option(cls, typ, data=b""):
    return struct.pack("!HBB", cls, typ, len(data) // 4) + data


def tunnel_cases():
    p = []
    e_tcp = ether(inner_tcp(), dst=MAC_A, src=MAC_B)
    e_data = ether(inner_tcp(PSH | ACK, b"inner data"), dst=MAC_A, src=MAC_B)
    e_arp = ether(arp(), ETHERTYPE_ARP, dst=b"\xff" * 6)
    # VXLAN
    p.append(udp4(45149, 4789, vxlan(e_tcp)))                                         # TCP SYN inside
    p.append(udp4(45149, 4789, vxlan(e_data)))                                        # TCP data inside
    p.append(udp4(42710, 4789, vxlan(e_arp)))                                         # ARP request inside
    p.append(udp4(42710, 4789, vxlan(ether(arp(2), ETHERTYPE_ARP))))                  # ARP reply inside
    p.append(udp4(4789, 50000, vxlan(ether(inner_tcp(v6=True), ETHERTYPE_IPV6), flags=0, vni=0xFFFFFF)))  # no I flag
    p.append(udp4(45149, 4789, vxlan(ether(struct.pack("!HH", 7, ETHERTYPE_IP) + inner_icmp(), ETHERTYPE_VLAN))))  # tagged
    p.append(udp4(45149, 4789, vxlan(ether(b"\x42\x42\x03" + stp_config(), 38, dst=STP_MULTICAST))))  # 802.3 STP inside
    p.append(udp4(45149, 4789, b"\x08\0\0\0\0"))                                     # shorter than the header
    p.append(Record(udp4(45149, 4789, vxlan(e_tcp)), caplen=14 + 20 + 8 + 4))        # cut inside the VNI
    p.append(Record(udp4(45149, 4789, vxlan(e_tcp)), caplen=14 + 20 + 8 + 7))        # cut before the last byte
    p.append(Record(udp4(45149, 4789, vxlan(e_tcp)), caplen=14 + 20 + 8 + 8 + 10))   # inner Ethernet header cut
    p.append(Record(udp4(45149, 4789, vxlan(e_tcp)), caplen=14 + 20 + 8 + 8 + 30))   # inner IP header cut
    p.append(udp4(45149, 4789, vxlan(e_tcp), length=8 + 8 + 20))                      # UDP length < datagram: [length < caplen]
    p.append(udp6(45149, 4789, vxlan(e_data)))                                        # over IPv6
    # Geneve
    opts = geneve_option(0x0102, 0x80, struct.pack("!I", 12)) + geneve_option(0xFFFF, 0x01)
    p.append(udp4(12618, 6081, geneve(e_tcp)))                                        # no options, Ethernet inside
    p.append(udp4(12618, 6081, geneve(ether(inner_icmp()), options=opts, flags=0xC0)))  # O and C, two options
    p.append(udp4(12618, 6081, geneve(inner_icmp(), proto=0x0800, options=geneve_option(0x0100, 0x05, bytes(range(8))))))  # IPv4
    p.append(udp4(12618, 6081, geneve(inner_tcp(v6=True), proto=0x86DD, flags=0x3F)))  # IPv6, reserved flags
    p.append(udp4(12618, 6081, geneve(arp(), proto=0x0806, vni=0xABCDEF)))            # ARP directly
    p.append(udp4(12618, 6081, geneve(e_arp, options=geneve_option(0x0104, 0x7F) + geneve_option(0x0200, 0x01, bytes(4)))))
    p.append(udp4(12618, 6081, geneve(b"opaque", proto=0x1234, options=geneve_option(0x0050, 0x02, bytes(4)))))  # unknown proto
    p.append(udp4(12618, 6081, geneve(e_tcp, version=1)))                             # unknown version
    p.append(udp4(12618, 6081, geneve(e_tcp, reserved=0x5A)))                         # reserved byte set
    p.append(udp4(12618, 6081, b"\x00\x00\x65"))                                      # shorter than the header
    p.append(udp4(12618, 6081, geneve(b"", optlen=4)))                                # options longer than the packet
    p.append(udp4(12618, 6081, geneve(e_tcp, options=struct.pack("!HBB", 0x0101, 0x01, 5) + bytes(4))))  # option [bad length]
    p.append(Record(udp4(12618, 6081, geneve(e_tcp)), caplen=14 + 20 + 8 + 6))       # cut inside the header
    p.append(Record(udp4(12618, 6081, geneve(e_tcp, options=opts)), caplen=14 + 20 + 8 + 12))  # cut inside the options
    p.append(udp6(12618, 6081, geneve(e_data, options=opts)))                          # over IPv6
    # GRE version 0
    p.append(ether(ipv4(gre(0x0800, inner_icmp()), proto=47)))                        # plain, IPv4
    p.append(ether(ipv4(gre(0x0800, inner_tcp(PSH | ACK, b"gre"), key=0x1234, seq=7), proto=47)))  # key and sequence
    p.append(ether(ipv4(gre(0x86DD, inner_tcp(v6=True), csum_=True, key=0xFFFFFFFF, seq=1), proto=47)))  # checksum, IPv6
    p.append(ether(ipv4(gre(0x6558, e_data, key=42), proto=47)))                       # gretap: Ethernet inside
    p.append(ether(ipv4(gre(0x6558, e_arp), proto=47)))                                # gretap ARP
    routes = (struct.pack("!HBB", 0x0800, 4, 8) + V4_C + V4_D + struct.pack("!HBB", 0xFFFE, 2, 4) + b"\x00\x10\x00\x20"
              + struct.pack("!HBB", 0x1234, 0, 4) + bytes(4) + struct.pack("!HBB", 0, 0, 0))
    p.append(ether(ipv4(gre(0x0800, inner_icmp(), routing=routes), proto=47)))         # source routes
    bad = (struct.pack("!HBB", 0x0800, 2, 8) + bytes(8) + struct.pack("!HBB", 0x0800, 0, 6) + bytes(6)
           + struct.pack("!HBB", 0xFFFE, 6, 4) + bytes(4) + struct.pack("!HBB", 0xFFFE, 1, 4) + bytes(4) + bytes(4))
    p.append(ether(ipv4(gre(0x0800, b"", routing=bad), proto=47)))                     # bad offsets and lengths
    p.append(ether(ipv4(gre(0x0800, b"", routing=struct.pack("!HBB", 0x0800, 0, 64) + bytes(8)), proto=47)))  # route past the end
    p.append(ether(ipv4(gre(0x9999, b"unknown"), proto=47)))                          # unknown protocol type
    p.append(ether(ipv4(struct.pack("!HH", 2, 0x0800) + inner_icmp(), proto=47)))     # version 2
    p.append(ether(ipv4(gre(0x0800, inner_icmp(), key=1, seq=2), proto=47, total_length=20 + 6)))  # IP length cuts the key
    p.append(Record(ether(ipv4(gre(0x0800, inner_icmp(), key=1, seq=2), proto=47)), caplen=14 + 20 + 1))  # cut in the flags
    p.append(Record(ether(ipv4(gre(0x0800, inner_icmp(), key=1, seq=2), proto=47)), caplen=14 + 20 + 10))  # cut in the sequence
    p.append(Record(ether(ipv4(gre(0x0800, inner_icmp()), proto=47)), caplen=14 + 20 + 4 + 12))  # inner IP cut
    p.append(ether(ipv6(gre(0x0800, inner_icmp(), key=9), nh=47), ETHERTYPE_IPV6))    # over IPv6
    # GRE version 1 (PPTP) with PPP
    ppp_ip = b"\xff\x03\x00\x21" + inner_icmp()
    p.append(ether(ipv4(gre1(ppp_ip, call=5, seq=1, ack=0), proto=47)))                # call, seq, ack; PPP IPv4
    p.append(ether(ipv4(gre1(b"\x21" + inner_icmp(), call=5, seq=2), proto=47)))      # compressed protocol field
    p.append(ether(ipv4(gre1(b"", call=5, ack=3), proto=47)))                          # ack only: no-payload
    p.append(ether(ipv4(gre1(b"\xff\x03\x00\x57" + inner_tcp(v6=True), call=6, seq=3), proto=47)))  # PPP IPv6
    p.append(ether(ipv4(gre1(b"\xff\x03\xc0\x21" + lcp(9, 1, struct.pack("!I", 0x01020304) + b"data"), call=5, seq=4), proto=47)))
    p.append(ether(ipv4(gre1(b"\xff\x03\xc0\x21" + lcp(10, 1, struct.pack("!I", 0x05060708)), call=5, seq=5), proto=47)))
    p.append(ether(ipv4(gre1(b"\xff\x03\xc0\x21" + lcp(5, 2, b""), call=5, seq=6), proto=47)))   # Term-Request
    p.append(ether(ipv4(gre1(b"\xff\x03\x80\x21" + lcp(1, 3, b""), call=5, seq=7), proto=47)))   # IPCP Conf-Request, no options
    p.append(ether(ipv4(gre1(b"\xff\x03\xc0\x21" + lcp(8, 4, b"\x80\x21" + b"rej"), call=5, seq=8), proto=47)))  # Prot-Reject
    p.append(ether(ipv4(gre1(b"\xff\x03\xc0\x21" + lcp(12, 5, struct.pack("!I", 9) + b"hello"), call=5, seq=9), proto=47)))  # Ident
    p.append(ether(ipv4(gre1(b"\xff\x03\xc0\x21" + lcp(13, 6, struct.pack("!II", 9, 3600)), call=5, seq=10), proto=47)))  # Time-Rem
    p.append(ether(ipv4(gre1(b"\xff\x03\xc0\x21" + lcp(14, 7, b"abcd"), call=5, seq=11), proto=47)))  # Reset-Req
    p.append(ether(ipv4(gre1(b"\xff\x03\xc0\x21" + struct.pack("!BBH", 9, 8, 2) + bytes(4), call=5, seq=12), proto=47)))  # encoded < 4
    p.append(ether(ipv4(gre1(b"\xff\x03\xc0\x21" + struct.pack("!BBH", 9, 8, 99) + bytes(4), call=5, seq=13), proto=47)))  # encoded > length
    p.append(ether(ipv4(gre1(b"\xff\x03\xc0\x21\x09", call=5, seq=14), proto=47)))   # control message cut short
    p.append(ether(ipv4(gre1(b"\xff\x03\x40\x21" + b"mystery", call=5, seq=15), proto=47)))  # unknown PPP protocol
    p.append(ether(ipv4(gre1(b"\xff\x03\x00\xfd" + b"zz", call=5, seq=16), proto=47)))  # compressed datagram
    p.append(ether(ipv4(gre1(b"\xff", call=5, seq=17), proto=47)))                    # PPP shorter than 2 bytes
    p.append(ether(ipv4(gre1(b"x", call=5, seq=18, proto=0x0800), proto=47)))        # v1 with another protocol
    p.append(Record(ether(ipv4(gre1(ppp_ip, call=5, seq=19, ack=1), proto=47)), caplen=14 + 20 + 14))  # cut in the ack
    return p


def gre(proto, payload, csum_=False, key=None, seq=None, routing=None):
    flags = (0x8000 if csum_ else 0) | (0x4000 if routing is not None else 0) | (0x2000 if key is not None else 0) | (0x1000 if seq is not None else 0)
    header = struct.pack("!HH", flags, proto)
    if csum_ or routing is not None:
        header += struct.pack("!HH", 0xBEEF, 0)
    if key is not None:
        header += struct.pack("!I", key)
    if seq is not None:
        header += struct.pack("!I", seq)
    return header + (routing or b"") + payload


def gre1(payload, call=None, seq=None, ack=None, proto=0x880B):
    flags = 0x0001 | (0x2000 if call is not None else 0) | (0x1000 if seq is not None else 0) | (0x0080 if ack is not None else 0)
    header = struct.pack("!HH", flags, proto)
    if call is not None:
        header += struct.pack("!HH", len(payload), call)
    if seq is not None:
        header += struct.pack("!I", seq)
    if ack is not None:
        header += struct.pack("!I", ack)
    return header + payload


def lcp(code, ident, data):
    return struct.pack("!BBH", code, ident, 4 + len(data)) + data


# ---------------------------------------------------------------- IGMP, SCTP, DCCP

RA = b"\x94\x04\x00\x00"


def igmp(body, dst=GROUP, fix=True, **kw):
    if fix and len(body) >= 4:
        body = body[:2] + b"\0\0" + body[4:]
        body = body[:2] + struct.pack("!H", csum(body)) + body[4:]
    return ether(ipv4(body, proto=2, dst=dst, options=RA, ttl=1, **kw))


def igmp_msg(typ, code, group, extra=b""):
    return struct.pack("!BBH4s", typ, code, 0, group) + extra


def v3_record(typ, group, sources=(), aux=b""):
    return struct.pack("!BBH4s", typ, len(aux) // 4, len(sources), group) + b"".join(sources) + aux


def ip_proto_cases():
    p = []
    all_hosts = bytes([224, 0, 0, 1])
    p.append(igmp(igmp_msg(0x11, 0, bytes(4)), dst=all_hosts))                        # v1 query
    p.append(igmp(igmp_msg(0x11, 100, bytes(4)), dst=all_hosts))                      # v2 general query
    p.append(igmp(igmp_msg(0x11, 50, GROUP)))                                         # v2 group query, max resp 50
    p.append(igmp(igmp_msg(0x11, 100, bytes(4)) + b"\0", dst=all_hosts))              # 9 bytes: [len 9]
    p.append(igmp(igmp_msg(0x12, 0, GROUP)))                                          # v1 report
    p.append(igmp(igmp_msg(0x12, 0, GROUP) + bytes(4)))                               # v1 report, 12 bytes
    p.append(igmp(igmp_msg(0x16, 0, GROUP)))                                          # v2 report
    p.append(igmp(igmp_msg(0x17, 0, GROUP), dst=bytes([224, 0, 0, 2])))               # leave
    p.append(igmp(igmp_msg(0x11, 100, bytes(4), struct.pack("!BBH", 2, 125, 0)), dst=all_hosts))  # v3 general query
    p.append(igmp(igmp_msg(0x11, 0x8A, GROUP, struct.pack("!BBH", 2, 125, 2) + V4_A + V4_B)))  # v3 group-and-source, exp. code
    p.append(igmp(igmp_msg(0x11, 25, GROUP, struct.pack("!BBH", 2, 125, 0))))         # 2.5 s
    p.append(igmp(igmp_msg(0x11, 0xFF, GROUP, struct.pack("!BBH", 2, 125, 1) + V4_A)))  # longest time
    p.append(igmp(igmp_msg(0x11, 10, GROUP, struct.pack("!BBH", 2, 125, 9) + V4_A)))  # more sources than fit
    p.append(igmp(igmp_msg(0x11, 100, GROUP, struct.pack("!BBH", 2, 125, 0)) + b"\0"))  # 13 bytes: invalid len
    records = v3_record(2, GROUP) + v3_record(5, bytes([239, 9, 9, 9]), (V4_A, V4_B)) + v3_record(7, GROUP, (V4_C,), bytes(4))
    p.append(igmp(struct.pack("!BBHHH", 0x22, 0, 0, 0, 3) + records, dst=bytes([224, 0, 0, 22])))  # v3 report, 3 records
    p.append(igmp(struct.pack("!BBHHH", 0x22, 0, 0, 0, 4) + v3_record(1, GROUP), dst=bytes([224, 0, 0, 22])))  # too many groups
    p.append(igmp(struct.pack("!BBHHH", 0x22, 0, 0, 0, 1) + v3_record(3, GROUP)[:6] + b"\0\3" + bytes(4), dst=bytes([224, 0, 0, 22])))  # sources past the end
    p.append(igmp(struct.pack("!BBHHH", 0x22, 0, 0, 0, 1) + bytes(6), dst=bytes([224, 0, 0, 22])))  # invalid len 14
    trace = struct.pack("!4s4s4sB3s", V4_C, V4_D, V4_A, 64, (7).to_bytes(3, "big"))
    p.append(igmp(igmp_msg(0x1F, 0, GROUP, trace)))                                   # mtrace query
    p.append(igmp(igmp_msg(0x1E, 0, GROUP, trace[:8] + bytes([224, 0, 1, 32]) + trace[12:] + bytes(32))))  # mresp, multicast reply
    p.append(igmp(igmp_msg(0x1F, 0, GROUP, trace[:10])))                              # mtrace too short
    p.append(igmp(struct.pack("!BBH4s", 0x13, 1, 0, b"\0\0\x0c\x03") + struct.pack("!I", 77) + V4_A + V4_B))  # DVMRP probe
    report = b"\xff\xff\x00" + b"\xc0\x00\x02\x81" + b"\xff\x00\x00" + b"\x0a\x01\x02" + b"\x0a\x02\x83"
    p.append(igmp(struct.pack("!BBH4s", 0x13, 2, 0, b"\0\0\x0c\x03") + report))       # DVMRP report
    p.append(igmp(struct.pack("!BBH4s", 0x13, 2, 0, b"\0\0\x0c\x03") + b"\xff\xff\x00\xc0\x00"))  # report cut
    p.append(igmp(struct.pack("!BBH4s", 0x13, 4, 0, bytes(4)) + V4_A + b"\x01\x02\x02" + V4_B + V4_C))  # neighbors (old)
    nb2 = V4_A + b"\x01\x00\x41\x02" + V4_B + V4_C + V4_D + b"\x02\x01\x32\x01" + bytes(4)
    p.append(igmp(struct.pack("!BBH4s", 0x13, 6, 0, b"\0\0\x04\x0c") + nb2))           # neighbors2 with flags
    p.append(igmp(struct.pack("!BBH4s", 0x13, 6, 0, b"\0\0\x04\x0c") + V4_A + b"\x01\x00\x00\x05" + V4_B))  # ncount too big
    p.append(igmp(struct.pack("!BBH4s", 0x13, 7, 0, bytes(4)) + V4_A + GROUP + struct.pack("!I", 7384)))  # prune
    p.append(igmp(struct.pack("!BBH4s", 0x13, 8, 0, bytes(4)) + V4_A + GROUP))       # graft
    p.append(igmp(struct.pack("!BBH4s", 0x13, 5, 0, bytes(4))))                        # ask neighbors2
    p.append(igmp(struct.pack("!BBH4s", 0x13, 42, 0, bytes(4))))                       # unknown DVMRP type
    p.append(igmp(igmp_msg(0x63, 0, GROUP)))                                          # unknown IGMP type
    p.append(igmp(igmp_msg(0x16, 0, GROUP), fix=False))                               # bad checksum (-v)
    p.append(Record(igmp(igmp_msg(0x16, 0, GROUP)), caplen=14 + 24 + 6))              # cut inside the group
    p.append(ether(ipv6(igmp_msg(0x16, 0, GROUP), nh=2), ETHERTYPE_IPV6))             # IGMP over IPv6
    # SCTP
    chunks = [
        sctp_chunk(1, 0, struct.pack("!IIHHI", 0x11223344, 65536, 10, 10, 1000) + struct.pack("!HHI", 5, 8, 0xC0000201)),  # INIT + param
        sctp_chunk(2, 0, struct.pack("!IIHHI", 0x55667788, 32768, 5, 5, 5000) + struct.pack("!HH", 7, 8) + b"cook"),  # INIT ACK
        sctp_chunk(10, 0, b"cookie"),                                                    # COOKIE ECHO, padded
        sctp_chunk(11, 0, b""),                                                          # COOKIE ACK
        sctp_chunk(0, 3, struct.pack("!IHHI", 1000, 0, 0, 0) + b"hello sctp"),           # DATA B/E
        sctp_chunk(0, 4, struct.pack("!IHHI", 1001, 1, 7, 46) + b"x"),                   # DATA unordered, middle
        sctp_chunk(3, 0, struct.pack("!IIHH", 1001, 60000, 2, 1) + struct.pack("!HHHHI", 2, 3, 5, 5, 999)),  # SACK gaps+dup
        sctp_chunk(4, 0, struct.pack("!HH", 1, 8) + b"time"),                            # HB REQ
        sctp_chunk(5, 0, struct.pack("!HH", 1, 8) + b"time"),                            # HB ACK
        sctp_chunk(6, 1, struct.pack("!HH", 12, 4)),                                     # ABORT
        sctp_chunk(7, 0, struct.pack("!I", 1001)),                                       # SHUTDOWN
        sctp_chunk(8, 0, b""),                                                           # SHUTDOWN ACK
        sctp_chunk(14, 0, b""),                                                          # SHUTDOWN COMPLETE
        sctp_chunk(9, 0, struct.pack("!HH", 1, 8) + b"\0\1\0\0"),                        # OP ERR
        sctp_chunk(0xC0, 0, struct.pack("!I", 5)),                                       # FOR CUM TSN
        sctp_chunk(0x55, 0, b"??"),                                                      # unknown type
    ]
    for chunk in chunks:
        p.append(sctp4(chunk))
    p.append(sctp4(sctp_chunk(3, 0, struct.pack("!IIHH", 5, 100, 0, 0)) + sctp_chunk(0, 3, struct.pack("!IHHI", 6, 0, 1, 0) + b"ab")))  # bundled
    p.append(sctp4(sctp_chunk(0, 3, struct.pack("!IHHI", 7, 0, 1, 0))))               # DATA without payload: bogus
    p.append(sctp4(struct.pack("!BBH", 0, 3, 10) + bytes(8)))                         # DATA shorter than its header
    p.append(sctp4(struct.pack("!BBH", 1, 0, 12) + bytes(8)))                         # INIT too short
    p.append(sctp4(struct.pack("!BBH", 3, 0, 18) + struct.pack("!IIHH", 1, 2, 3, 0) + b"\0\1\0\0"))  # SACK gap block cut
    p.append(sctp4(struct.pack("!BBH", 7, 0, 2) + bytes(4)))                          # chunk length < 4
    p.append(sctp4(sctp_chunk(11, 0, b"") + b"\0\0"))                                 # 2 stray bytes: descriptor cut off
    p.append(sctp4(struct.pack("!BBH", 10, 0, 7) + b"abc"))                           # padding missing
    p.append(ether(ipv4(b"\x13\x88\x13\x89\0\0", proto=132)))                         # truncated-sctp
    p.append(Record(sctp4(chunks[0]), caplen=14 + 20 + 8))                            # common header cut
    p.append(Record(sctp4(chunks[0]), caplen=14 + 20 + 12 + 10))                     # chunk cut
    p.append(ether(ipv6(sctp_header(5000, 5001) + chunks[4], nh=132), ETHERTYPE_IPV6))  # over IPv6
    # DCCP
    p.append(dccp4(0, options=b"\x00\x00\x20\x04\x05\x02\x22\x04\x01\x02", extra=struct.pack("!I", 42)))  # Request + features
    p.append(dccp4(1, extra=struct.pack("!I", 42), ack=True))                        # Response
    p.append(dccp4(2, payload=b"payload"))                                            # Data
    p.append(dccp4(3, ack=True, options=b"\x29\x06\0\0\x01\x00\x2a\x08\0\0\x01\x00\x00\x05"))  # Ack, timestamp + echo
    p.append(dccp4(4, ack=True, payload=b"da", options=b"\x2b\x04\x00\x10\x2b\x06\0\0\x01\0\x2c\x06\xde\xad\xbe\xef"))  # DataAck
    p.append(dccp4(5, ack=True))                                                      # CloseReq
    p.append(dccp4(6, ack=True))                                                      # Close
    p.append(dccp4(7, ack=True, extra=bytes([3, 0, 0, 0])))                           # Reset, aborted
    p.append(dccp4(7, ack=True, extra=bytes([20, 0, 0, 0])))                          # Reset, invalid code
    p.append(dccp4(8, ack=True, options=b"\x80\x04\x01\x02\x81\x06\0\0\0\x09\x82\x03\x05"))  # Sync, CCID options
    p.append(dccp4(9, ack=True, options=b"\x24\x06\x01\x02\x03\x04\x25\x04\x01\x02\x26\x04\xf0\x0f\x27\x03\x55"))  # SyncAck
    p.append(dccp4(3, ack=True, options=b"\x28\x03\x11\x2a\x0a" + bytes(8) + b"\x29\x04\0\0\x2a\x05\0\0\0\x2b\x05\0\0\0\x01\x02\x21\x03\x0c"))
    p.append(dccp4(3, ack=True, options=b"\x21\x02\x00\x00"))                         # confirm_l too short
    p.append(dccp4(3, ack=True, options=b"\x20\x01\x00\x00"))                         # option length < 2
    p.append(dccp4(3, ack=True, options=b"\x29\x09\x00\x00"))                         # option past the header
    p.append(dccp4(3, ack=True, options=b"\x90\x01\x00\x00"))                         # CCID option length < 2
    p.append(dccp4(3, ack=True, options=b"\x90\x09\x00\x00"))                         # CCID option past the header
    p.append(dccp4(2, x=False, payload=b"short"))                                     # 24-bit sequence numbers
    p.append(dccp4(3, x=False, ack=True))                                             # Ack with 24-bit numbers
    p.append(dccp4(12, ack=True))                                                     # unknown type
    p.append(dccp4(2, payload=b"covered", cscov=1))                                  # partial coverage
    p.append(dccp4(2, payload=b"broken", bad_sum=True))                               # wrong checksum (-v)
    p.append(ether(ipv4(b"\x9c\x40\x1b\x39\x03\x00\0\0\x05", proto=33)))             # truncated-dccp, 9 bytes
    p.append(dccp4(3, ack=False, raw_length=16 + 4))                                  # truncated-DCCP-Ack
    p.append(ether(ipv4(dccp_segment(2, b"", V4_A, V4_B)[:14], proto=33)))           # extended header cut by the length
    p.append(Record(dccp4(3, ack=True), caplen=14 + 20 + 10))                         # header cut by the capture
    p.append(Record(dccp4(3, ack=True, options=b"\x29\x06\0\0\x01\x00\x00\x00"), caplen=14 + 20 + 16 + 8 + 3))  # option cut
    p.append(dccp6(4, ack=True, payload=b"v6"))                                       # over IPv6
    return p


def sctp_chunk(typ, flags, body):
    chunk = struct.pack("!BBH", typ, flags, 4 + len(body)) + body
    return chunk + bytes((4 - len(chunk) % 4) % 4)


def sctp_header(sport=5000, dport=5001):
    return struct.pack("!HHII", sport, dport, 0xCAFEBABE, 0)


def sctp4(chunks, sport=5000, dport=5001):
    return ether(ipv4(sctp_header(sport, dport) + chunks, proto=132))


def dccp_segment(typ, body, src, dst, x=True, options=b"", payload=b"", cscov=0, seq=0x123456789A, v6=False, bad_sum=False):
    header_len = (16 if x else 12) + len(body) + len(options)
    if header_len % 4:
        options += bytes(4 - header_len % 4)
        header_len = (16 if x else 12) + len(body) + len(options)
    if x:
        fixed = struct.pack("!HHBBHBB", 40000, 5001, header_len // 4, cscov, 0, (typ << 1) | 1, 0) + seq.to_bytes(6, "big")
    else:
        fixed = struct.pack("!HHBBHB", 40000, 5001, header_len // 4, cscov, 0, typ << 1) + (seq & 0xFFFFFF).to_bytes(3, "big")
    segment = fixed + body + options + payload
    covered = len(segment) if cscov == 0 else min(len(segment), (header_len // 4 + cscov - 1) * 4)
    pseudo = pseudo6(src, dst, 33, len(segment)) if v6 else pseudo4(src, dst, 33, len(segment))
    c = csum(pseudo + segment[:covered]) ^ (0x1111 if bad_sum else 0)
    return segment[:6] + struct.pack("!H", c) + segment[8:]


def dccp_body(typ, x, ack, extra):
    body = b""
    if ack or typ in (1, 3, 4, 5, 6, 7, 8, 9, 12):
        body = struct.pack("!HI", 0, 0x12345678) if x else struct.pack("!BBH", 0, 0, 0x4321) + bytes(4)
    return body + extra


def dccp4(typ, x=True, ack=False, extra=b"", raw_length=None, **kw):
    segment = dccp_segment(typ, dccp_body(typ, x, ack, extra), V4_A, V4_B, x=x, **kw)
    if raw_length is not None:
        segment = segment[:raw_length]
    return ether(ipv4(segment, proto=33))


def dccp6(typ, x=True, ack=False, extra=b"", **kw):
    segment = dccp_segment(typ, dccp_body(typ, x, ack, extra), V6_A, V6_B, x=x, v6=True, **kw)
    return ether(ipv6(segment, nh=33), ETHERTYPE_IPV6)


# ---------------------------------------------------------------- LLC, SNAP, STP, LLDP

def dot3(payload, length=None, dst=STP_MULTICAST, src=MAC_A):
    return dst + src + struct.pack("!H", len(payload) if length is None else length) + payload


def stp_config(version=0, typ=0, flags=0x01):
    return struct.pack("!HBBB8sI8sHHHHH", 0, version, typ, flags, bytes.fromhex("8000001906eab880"), 4,
                       bytes.fromhex("8001001906eab880"), 0x800C, 256, 20 * 256, 2 * 256, 15 * 256 + 37)


def mstp(version=3, mstis=2, spb=False):
    base = stp_config(version, 2, 0x7C) + b"\0"
    msti = b"".join(struct.pack("!B8sIBBB", 0x20 | (i << 2), bytes.fromhex("9000%02x1906eab880" % i), 200 * i, 0x80, 0x90, 19) for i in range(mstis))
    v3 = struct.pack("!B32sH16sI8sB", 0, b"region-one", 3, bytes(range(16)), 20000, bytes.fromhex("8000001906eab8aa"), 20) + msti
    body = base + struct.pack("!H", len(v3)) + v3
    if spb:
        aux = struct.pack("!B32sH16sBBBBH8s20s", 0, b"aux\x01name", 9, bytes(range(16, 32)), 0xD4, 0, 0x12, 0x34, 5, bytes(8), bytes(range(20)))
        body += struct.pack("!H", len(aux)) + aux
    return body


def llc(dsap, ssap, control, payload=b""):
    return bytes([dsap, ssap]) + (bytes([control]) if control & 3 == 3 else struct.pack("<H", control)) + payload


def tlv(typ, value):
    return struct.pack("!H", (typ << 9) | len(value)) + value


def org(oui, subtype, value):
    return tlv(127, oui.to_bytes(3, "big") + bytes([subtype]) + value)


def lldp(*tlvs, end=True):
    return ether(b"".join(tlvs) + (tlv(0, b"") if end else b""), 0x88CC, dst=LLDP_MULTICAST)


def cdp_tlv(typ, value):
    return struct.pack("!HH", typ, 4 + len(value)) + value


def cdp(*tlvs, version=2, ttl=180):
    return struct.pack("!BBH", version, ttl, 0xBEEF) + b"".join(tlvs)


def llc_cases():
    p = []
    stp = b"\x42\x42\x03"
    p.append(dot3(stp + stp_config()))                                                # STP config
    p.append(dot3(stp + stp_config(flags=0x81) + bytes(8), length=3 + 35))            # padded, TC + TC ack
    p.append(dot3(stp + struct.pack("!HBB", 0, 0, 0x80)))                            # TCN
    p.append(dot3(stp + stp_config(2, 2, 0x3E) + b"\0"))                             # RSTP designated, proposal
    p.append(dot3(stp + stp_config(2, 2, 0x58) + b"\0"))                             # RSTP root, agreement
    p.append(dot3(stp + stp_config(2, 2, 0x00) + b"\0"))                             # RSTP no flags
    p.append(dot3(stp + mstp()))                                                      # MSTP, 2 MSTIs
    p.append(dot3(stp + mstp(mstis=0)))                                               # MSTP, no MSTI
    p.append(dot3(stp + mstp(4, 1, spb=True)))                                        # SPB
    p.append(dot3(stp + mstp(4, 1, spb=True)[:-20]))                                  # SPB too short: invalid
    p.append(dot3(stp + mstp()[:35] + b"\x01" + mstp()[36:]))                         # MSTP v1 length set: invalid
    p.append(dot3(stp + mstp()[:37] + b"\xff" + mstp()[38:]))                         # MSTP v3 length too big: invalid
    p.append(dot3(stp + stp_config(7)))                                               # unknown STP version
    p.append(dot3(stp + stp_config(0, 0x44)))                                         # unknown BPDU type
    p.append(dot3(stp + b"\x00\x01\x00\x00"))                                         # protocol id != 0
    p.append(dot3(stp + b"\x00\x00"))                                                 # shorter than 4: invalid
    p.append(dot3(stp + stp_config()[:30]))                                           # config too short: invalid
    p.append(Record(dot3(stp + stp_config()), caplen=14 + 3 + 20))                    # cut in the bridge ID
    p.append(Record(dot3(stp + mstp()), caplen=14 + 3 + 110))                         # cut in an MSTI (-v)
    p.append(ether(struct.pack("!H", 0xE000) + dot3(stp + stp_config())[12:], ETHERTYPE_VLAN, dst=STP_MULTICAST))  # tagged
    p.append(dot3(b"\xaa\xaa\x03\x00\x00\x0c\x01\x0b" + stp_config(), dst=bytes.fromhex("01000ccccccd")))  # Cisco PVST
    # SNAP
    snap = b"\xaa\xaa\x03"
    p.append(dot3(snap + b"\x00\x00\x00\x08\x00" + ipv4(udp(40001, 6969, b"snap"), proto=17), dst=MAC_B))  # RFC 1042 IPv4
    p.append(dot3(snap + b"\x00\x00\x00\x08\x06" + arp(), dst=b"\xff" * 6))         # RFC 1042 ARP
    p.append(dot3(snap + b"\x00\x00\x00\x99\x99" + b"opaque", dst=MAC_B))           # unknown ethertype: dump
    p.append(dot3(snap + b"\x00\x00\xf8\x08\x00" + ipv4(udp(40001, 6969, b"bridged"), proto=17), dst=MAC_B))  # Cisco bridged
    p.append(dot3(snap + b"\x00\x80\xc2\x00\x07\x00\x00" + ether(inner_icmp()), dst=MAC_B))  # bridged Ethernet
    p.append(dot3(snap + b"\x00\x80\xc2\x00\x0e" + stp_config(), dst=MAC_B))        # bridged BPDU
    p.append(dot3(snap + b"\x00\x80\xc2\x00\x0b" + b"dqdb", dst=MAC_B))             # 802.6: not decoded
    p.append(dot3(snap + b"\x12\x34\x56\xab\xcd" + b"vendor", dst=MAC_B))           # unknown organisation
    p.append(dot3(snap + b"\x08\x00\x07\x80\xf3" + b"aarp", dst=MAC_B))             # Apple OUI, not AppleTalk
    p.append(dot3(snap + b"\x00\x00\x0c\x01\x23" + b"cisco", dst=MAC_B))            # Cisco, unknown pid
    p.append(dot3(snap + b"\x00\x80\xc2\x00\x07\x00", dst=MAC_B))                    # bridged, pad cut
    p.append(dot3(snap + b"\x00\x00\x00", dst=MAC_B))                                 # SNAP header cut by the length
    p.append(Record(dot3(snap + b"\x00\x00\x00\x08\x00" + ipv4(udp(1, 2, b"")), dst=MAC_B), caplen=14 + 3 + 3))  # cut by the capture
    # CDP (SNAP, Cisco OUI, PID 0x2000)
    cdp_dst = bytes.fromhex("01000ccccccc")
    addresses = (struct.pack("!I", 4) + b"\x01\x01\xcc" + struct.pack("!H", 4) + V4_A
                 + b"\x02\x08\xaa\xaa\x03\x00\x00\x00\x86\xdd" + struct.pack("!H", 16) + V6_A
                 + b"\x01\x01\x81" + struct.pack("!H", 2) + b"\x12\x34" + b"\x09\x00" + struct.pack("!H", 0) + b"xy")
    p.append(dot3(snap + b"\x00\x00\x0c\x20\x00" + cdp(cdp_tlv(1, b"switch-1"), cdp_tlv(2, addresses), cdp_tlv(3, b"Gi0/1"),
                  cdp_tlv(4, struct.pack("!I", 0x29)), cdp_tlv(5, b"Example IOS\nVersion 1.0\n"), cdp_tlv(6, b"cisco WS-C3560"),
                  cdp_tlv(7, V4_A + b"\x18" + V4_B + b"\x20"), cdp_tlv(8, b"hello"), cdp_tlv(9, b"domain"), cdp_tlv(10, b"\x00\x07"),
                  cdp_tlv(11, b"\x01"), cdp_tlv(14, b"\x01\x00\x0a"), cdp_tlv(15, b"\x20\x00"), cdp_tlv(16, b"\x03\xed"),
                  cdp_tlv(16, b"\x05"), cdp_tlv(16, b"\x01\x86\xa3"), cdp_tlv(17, struct.pack("!I", 1500)), cdp_tlv(18, b"\x01"),
                  cdp_tlv(19, b"\x02"), cdp_tlv(20, b"sysname"), cdp_tlv(21, b"\x06\x01"), cdp_tlv(22, struct.pack("!I", 1) + b"\x01\x01\xcc\x00\x04" + V4_C),
                  cdp_tlv(23, b"\x01room 7"), cdp_tlv(12, b"odd"), cdp_tlv(0x30, b"future")), dst=cdp_dst))
    p.append(dot3(snap + b"\x00\x00\x0c\x20\x00" + cdp(cdp_tlv(1, b"sw2"), cdp_tlv(4, b"\x00\x01\x02"), cdp_tlv(11, b"\x00"),
                  cdp_tlv(7, b"\x01\x02\x03"), cdp_tlv(2, b"\x00\x00"), cdp_tlv(0x16, struct.pack("!I", 2) + b"\x01"),
                  cdp_tlv(2, struct.pack("!I", 1) + b"\x01\x05\xcc"), cdp_tlv(2, struct.pack("!I", 1) + b"\x01\x01\xcc\x00\x04\x01"),
                  cdp_tlv(2, struct.pack("!I", 1) + b"\x01\x01\xcc\x00\x04" + V4_A + b"zz")), dst=cdp_dst))
    p.append(dot3(snap + b"\x00\x00\x0c\x20\x00" + cdp(cdp_tlv(1, b"sw3")) + struct.pack("!HH", 3, 2), dst=cdp_dst))  # TLV length < 4
    p.append(dot3(snap + b"\x00\x00\x0c\x20\x00" + cdp(cdp_tlv(1, b"sw4")) + struct.pack("!HH", 3, 40) + b"x", dst=cdp_dst))  # past the end
    p.append(dot3(snap + b"\x00\x00\x0c\x20\x00" + cdp(cdp_tlv(1, b"sw5")) + b"\x00\x03", dst=cdp_dst))  # 2 stray bytes
    p.append(dot3(snap + b"\x00\x00\x0c\x20\x00" + b"\x02\xb4", dst=cdp_dst))   # shorter than the CDP header
    p.append(Record(dot3(snap + b"\x00\x00\x0c\x20\x00" + cdp(cdp_tlv(1, b"device-cut-by-capture")), dst=cdp_dst), caplen=14 + 8 + 4 + 4 + 6))
    # DTP (PID 0x2004) and UDLD (PID 0x0111)
    dtp = b"\x00\x00\x0c\x20\x04\x01"
    p.append(dot3(snap + dtp + cdp_tlv(1, b"Lab\0") + cdp_tlv(2, b"\x04") + cdp_tlv(3, b"\x40") + cdp_tlv(4, MAC_A)
                  + cdp_tlv(9, b"??") + cdp_tlv(0, b""), dst=cdp_dst))
    p.append(dot3(snap + dtp + cdp_tlv(2, b"\x04\x05"), dst=cdp_dst))                # status of the wrong size
    p.append(dot3(snap + dtp + cdp_tlv(4, MAC_A[:5]), dst=cdp_dst))                   # neighbour of the wrong size
    p.append(dot3(snap + dtp + struct.pack("!HH", 1, 40) + b"x", dst=cdp_dst))        # TLV past the end
    p.append(dot3(snap + dtp + b"\x00\x01", dst=cdp_dst))                            # 2 bytes remaining
    udld = b"\x00\x00\x0c\x01\x11"
    udld_tlvs = (cdp_tlv(1, b"FOC1031Z7JG") + cdp_tlv(2, b"Gi0/1") + cdp_tlv(3, b"\0\1\2\3") + cdp_tlv(4, b"\x07")
                 + cdp_tlv(5, b"\x05") + cdp_tlv(6, b"S1") + cdp_tlv(7, struct.pack("!I", 9)) + cdp_tlv(8, b"new"))
    p.append(dot3(snap + udld + b"\x21\x03\x6d\x85" + udld_tlvs, dst=cdp_dst))    # probe, RT and RSY
    p.append(dot3(snap + udld + b"\x5f\xfc\x00\x00" + cdp_tlv(4, b"\x07\x08"), dst=cdp_dst))  # code 31, MBZ flags, bad interval
    p.append(dot3(snap + udld + b"\x22\x00\x00\x00" + struct.pack("!HH", 1, 4), dst=cdp_dst))  # TLV length 4
    p.append(dot3(snap + udld + b"\x22\x00\x00\x00" + struct.pack("!HH", 7, 9) + b"\0\0\0\0\0", dst=cdp_dst))  # sequence of 5
    p.append(dot3(snap + udld + b"\x21\x00", dst=cdp_dst))                          # shorter than the header
    p.append(Record(dot3(snap + udld + b"\x21\x03\x6d\x85" + udld_tlvs, dst=cdp_dst), caplen=14 + 8 + 4 + 8))  # cut
    # other LLC frames
    p.append(dot3(llc(0x06, 0x06, 0x03, ipv4(udp(40001, 6969, b"rfc948"), proto=17)), dst=MAC_B))  # IP SAP
    p.append(dot3(llc(0xF0, 0xF0, 0x03, b"netbios"), dst=MAC_B))                     # NetBeui UI (no SMB printer)
    p.append(dot3(llc(0xF0, 0xF1, (5 << 1) | (3 << 9), b"i-frame"), dst=MAC_B))  # I frame, response
    p.append(dot3(llc(0x04, 0x04, 0x0001 | (9 << 9) | 0x100), dst=MAC_B))            # S frame RR, poll
    p.append(dot3(llc(0x04, 0x05, 0x0005 | (2 << 9) | 0x100), dst=MAC_B))            # RNR, final
    p.append(dot3(llc(0x04, 0x04, 0x0009), dst=MAC_B))                               # REJ
    p.append(dot3(llc(0x04, 0x04, 0x000D), dst=MAC_B))                               # unknown supervisory
    p.append(dot3(llc(0x12, 0x34, 0xE3, b"test data"), dst=MAC_B))                    # TEST, unknown SAPs
    p.append(dot3(llc(0x13, 0x12, 0xF3), dst=MAC_B))                                 # TEST with poll, group dsap
    p.append(dot3(llc(0x00, 0x01, 0xBF, b"\x81\x01\x00"), dst=MAC_B))                # XID with format identifier
    p.append(dot3(llc(0x00, 0x00, 0xAF), dst=MAC_B))                                 # XID without payload
    p.append(dot3(llc(0x00, 0x00, 0xAF, b"\x42\x01"), dst=MAC_B))                    # XID of another format
    p.append(dot3(llc(0x00, 0x00, 0xAF, b"\x81\x01"), dst=MAC_B))                    # XID cut
    for control in (0x7F, 0x63, 0x43, 0x0F, 0x87, 0x2B):                              # SABME, UA, DISC, DM, FRMR, unknown
        p.append(dot3(llc(0x04, 0x04, control), dst=MAC_B))
    p.append(dot3(b"\x04\x04", dst=MAC_B))                                            # LLC shorter than 3
    p.append(dot3(b"\x04\x04\x00", dst=MAC_B))                                        # I frame without its second byte
    p.append(dot3(llc(0x04, 0x04, 0x03, b"abcdefgh"), length=5, dst=MAC_B))           # length field shorter than the frame
    p.append(dot3(llc(0x04, 0x04, 0x03, b"ab"), length=40, dst=MAC_B))                # length field longer than the frame
    p.append(ether(llc(0x04, 0x04, 0x03, b"jumbo"), 0x8870, dst=MAC_B))               # Alteon jumbo frame type
    p.append(Record(dot3(llc(0x04, 0x04, 0x03, b"cut")), caplen=14 + 2))            # cut inside LLC
    # LLDP
    chassis = tlv(1, b"\x04" + MAC_A)
    port = tlv(2, b"\x05eth0")
    ttl = tlv(3, b"\x00\x78")
    p.append(lldp(chassis, port, ttl, tlv(4, b"uplink port"), tlv(5, b"switch.example"), tlv(6, b"Example OS 1.0\nbuild 7"),
                  tlv(7, struct.pack("!HH", 0x0014, 0x0004)),
                  tlv(8, b"\x05\x01" + V4_A + b"\x02\x00\x00\x00\x02\x00"),
                  tlv(8, b"\x11\x02" + V6_A + b"\x03\x00\x00\x00\x07\x06\x2b\x06\x01\x02\x01\x01")))
    p.append(lldp(tlv(1, b"\x07local-chassis"), tlv(2, b"\x03" + MAC_B), ttl, tlv(5, b"second")))
    p.append(lldp(tlv(1, b"\x05\x01" + V4_A), tlv(2, b"\x04\x02" + V6_B), tlv(1, b"\x05\x06" + MAC_B), tlv(1, b"\x05\x09xyz"),
                  tlv(2, b"\x01alias"), tlv(2, b"\x02component"), tlv(2, b"\x06circuit"), tlv(2, b"\x07local"),
                  tlv(1, b"\x01chassis"), tlv(1, b"\x02ifalias"), tlv(1, b"\x03portcomp"), tlv(1, b"\x06ifname"),
                  tlv(1, b"\x08odd"), tlv(9, b"unknown tlv")))
    o8021 = 0x0080C2
    p.append(lldp(chassis, org(o8021, 1, b"\x00\x64"), org(o8021, 2, b"\x06\x00\xc8"), org(o8021, 3, b"\x00\x0a\x05users"),
                  org(o8021, 4, b"\x04\x88\x8e\x01\x00"), org(o8021, 7, b"\x03\x00\x00\x00\x05"), org(o8021, 8, b"\xa5\x0f"),
                  org(o8021, 9, b"\x83" + b"\x01\x23\x45\x67" + bytes([12] * 8) + bytes(range(8))),
                  org(o8021, 10, b"\x00" + b"\x76\x54\x32\x10" + bytes([25, 25, 25, 25, 0, 0, 0, 0]) + bytes(8)),
                  org(o8021, 11, b"\xc8\x81"), org(o8021, 12, b"\x00" + b"\x61\x0c\xbc" + b"\x82\x00\x50"),
                  org(o8021, 13, b"\x07\x0d\x45\x8a\xb5"), org(o8021, 14, b"\x80\x00\x00\x05" + b"\x00\x10\x01\x00\x20\x02"),
                  org(o8021, 99, b"future")))
    p.append(lldp(chassis, org(o8021, 1, b"\x00"), org(o8021, 3, b"\x00\x0a\x09us"), org(o8021, 4, b"\x09ab"),
                  org(o8021, 12, b"\x00\x01"), org(o8021, 14, b"\x80\x00\x00\x05\x00"), org(o8021, 9, b"short")))
    o8023 = 0x00120F
    p.append(lldp(chassis, org(o8023, 1, b"\x03\xc0\x36\x00\x10"), org(o8023, 1, b"\x01\x00\x00\x00\x63"),
                  org(o8023, 2, b"\x0f\x01\x03"), org(o8023, 2, b"\x00\x07\x09"), org(o8023, 3, b"\x01\x00\x00\x00\x09"),
                  org(o8023, 4, b"\x05\xee"), org(o8023, 9, b"x"), org(o8023, 4, b"\x05")))
    tia = 0x0012BB
    lci = b"\x02US" + b"\x01\x02CA" + b"\x03\x05Paris" + b"\x13\x01x"
    p.append(lldp(chassis, org(tia, 1, b"\x00\x33\x03"), org(tia, 2, b"\x01\x40\x64\xb8"),
                  org(tia, 3, b"\x01" + bytes.fromhex("a1b2c3d4e5f60718293a4b5c5d6e0f01")),
                  org(tia, 3, b"\x02" + bytes([len(lci)]) + lci + b"\0"), org(tia, 3, b"\x03911"),
                  org(tia, 3, b"\x07\x01\x02\x03"), org(tia, 4, b"\x51\x00\x9b"), org(tia, 4, b"\x92\x05\x00"),
                  org(tia, 5, b"rev A"), org(tia, 9, b"Example Inc"), org(tia, 11, b"asset-7"), org(tia, 20, b"??")))
    p.append(lldp(chassis, org(tia, 3, b"\x02\x05\x02US\x00\x05x"), org(tia, 3, b"\x02\x02"), org(tia, 2, b"\x01"),
                  org(0x00005E, 1, b"https://example.com/mud"), org(0x00005E, 2, b"abcd"), org(0x00005E, 1, b"ab")))
    dcbx = (struct.pack("!H", (1 << 9) | 10) + b"\x01\x02" + struct.pack("!II", 7, 8)
            + struct.pack("!H", (2 << 9) | 17) + b"\x00\x00\xa0\x00" + b"\x01\x23\x45\x67" + bytes([12] * 8) + b"\x08"
            + struct.pack("!H", (3 << 9) | 6) + b"\x00\x00\xe0\x00\x09\x08"
            + struct.pack("!H", (4 << 9) | 16) + b"\x00\x00\x80\x00" + b"\x89\x06\x00\x1b\x21\x08" + b"\x0c\xbc\x40\x00\x00\x10"
            + struct.pack("!H", (9 << 9) | 2) + b"zz")
    p.append(lldp(chassis, org(0x001B21, 2, dcbx), org(0x001B21, 1, b"old"), org(0x001B21, 2, struct.pack("!H", (1 << 9) | 4) + bytes(4)),
                  org(0x123456, 1, b"vendor"), tlv(127, b"\x00\x12")))
    p.append(lldp(chassis, tlv(1, b"\x04"), end=False))                              # MAC subtype too short (-v)
    p.append(lldp(chassis, tlv(3, b"\x01")))                                          # TTL too short (-v)
    p.append(lldp(chassis, tlv(8, b"\x09\x01" + V4_A)))                               # management address too long
    p.append(lldp(chassis, tlv(8, b"\x05\x01" + V4_A + b"\x02")))                     # no interface number
    p.append(lldp(chassis, tlv(8, b"\x03\x05\x01\x02\x02\x00\x00\x00\x01\x09")))     # unknown family, OID too long
    p.append(lldp(chassis, tlv(7, b"\x00")))                                          # capabilities too short
    p.append(ether(chassis + struct.pack("!H", (5 << 9) | 200) + b"short", 0x88CC, dst=LLDP_MULTICAST))  # TLV past the frame
    p.append(Record(lldp(chassis, tlv(5, b"name-cut-by-capture")), caplen=14 + 9 + 6))  # cut by the capture
    p.append(Record(lldp(chassis, tlv(5, b"x")), caplen=14 + 9 + 1))                  # cut in a TLV header
    return p


def sll(proto, payload):
    return struct.pack("!HHH8sH", 0, 1, 6, MAC_A + b"\0\0", proto) + payload


def sll_cases():
    stp = b"\x42\x42\x03" + stp_config()
    return [
        sll(4, stp),                                                                   # 802.2 STP
        sll(4, b"\xaa\xaa\x03\x00\x00\x00\x08\x00" + ipv4(udp(40001, 6969, b"x"), proto=17)),  # SNAP IPv4
        sll(4, llc(0x12, 0x34, 0xE3, b"test")),                                        # TEST, no addresses
        sll(4, llc(0x12, 0x12, 0x0001)),                                               # supervisory
        sll(4, b"\xf0"),                                                               # LLC cut
        sll(5, stp),                                                                   # another length: bytes only
        sll(0x8100, struct.pack("!HH", 5, 38) + stp),                                  # tag, then 802.2
        sll(0x8100, struct.pack("!HH", 0x2005, 0x0800) + ipv4(udp(40001, 6969, b"tagged"), proto=17)),  # tag, then IPv4
        sll(0x8100, b"\x00"),                                                          # tag cut
    ]


def captures():
    return {
        "crafted-tunnels.pcap": (1, tunnel_cases()),
        "crafted-ipproto.pcap": (1, ip_proto_cases()),
        "crafted-llc.pcap": (1, llc_cases()),
        "crafted-llc-sll.pcap": (113, sll_cases()),
    }
