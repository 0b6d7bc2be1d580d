"""PPPoE (tcpdump's print-pppoe.c and, inside sessions, print-ppp.c): discovery PADI, PADO,
PADR, PADS and PADT with text, binary, empty, unknown and EOL tags; sessions carrying LCP,
IPCP, IP6CP, IPv4 and IPv6; and the header's odd cases: another version or type, an unknown
code, a payload length longer than the frame, an oversized PADI, a frame shorter than the
header, headers and tags cut by the capture. Also the 3Com ethertypes (0x3c12, 0x3c13) and a
session inside 802.1Q.

PPP's configuration options (-v), PAP and CHAP are in ppp.py.
"""
import struct

from craft import *

BROADCAST = b"\xff" * 6
DISCOVERY, SESSION = 0x8863, 0x8864


def tag(kind, value=b""):
    return struct.pack("!HH", kind, len(value)) + value


def pppoe(code, session, payload, length=None, vertype=0x11):
    return struct.pack("!BBHH", vertype, code, session, len(payload) if length is None else length) + payload


def lcp(code, ident, data=b""):
    return struct.pack("!HBBH", 0xC021, code, ident, 4 + len(data)) + data


def ncp(proto, code, ident, data=b""):
    return struct.pack("!HBBH", proto, code, ident, 4 + len(data)) + data


def captures():
    host_uniq = tag(0x0103, bytes.fromhex("7a3f0000a1b2c3d4"))
    cookie = tag(0x0104, bytes(range(16)))
    packets = [
        # Discovery: PADI (broadcast) with an empty Service-Name and a binary Host-Uniq.
        ether(pppoe(0x09, 0, tag(0x0101) + host_uniq), DISCOVERY, dst=BROADCAST),
        # PADO: AC-Name text, Service-Name text, cookie in hex, EOL ends the list.
        ether(pppoe(0x07, 0, tag(0x0102, b"bras-1.example") + tag(0x0101, b"internet") + cookie + host_uniq + tag(0) + tag(0x0105, b"after eol")),
              DISCOVERY, dst=MAC_A, src=MAC_B),
        ether(pppoe(0x19, 0, tag(0x0101, b"internet") + cookie + host_uniq), DISCOVERY),
        ether(pppoe(0x65, 0x0011, tag(0x0101, b"internet") + host_uniq), DISCOVERY, dst=MAC_A, src=MAC_B),
        # PADT with the error tags, a vendor tag, Relay-Session-ID, PPP-Max-Payload, an unknown tag.
        ether(pppoe(0xA7, 0x0011, tag(0x0203, b"session closed") + tag(0x0201, b"no such service") + tag(0x0202, b"\x01\x02x")
                    + tag(0x0105, b"\x00\x00\x0d\xe9vendor text!") + tag(0x0110, b"\x00\x01") + tag(0x0120, b"\x05\xdc")
                    + tag(0x0999, b"mixed\x00\x01\x02\x03")), DISCOVERY),
        # A 100-byte printable tag: the text stops at 79 characters.
        ether(pppoe(0x09, 0, tag(0x0102, b"A" * 100)), DISCOVERY, dst=BROADCAST),
        # Sessions: LCP Configure-Request (options left to -v), Echo-Request/Reply, Terminate.
        ether(pppoe(0x00, 0x0011, lcp(1, 1, bytes.fromhex("010405d4") + bytes.fromhex("0506a1b2c3d4"))), SESSION),
        ether(pppoe(0x00, 0x0011, lcp(2, 1, bytes.fromhex("010405d4") + bytes.fromhex("0506a1b2c3d4"))), SESSION, dst=MAC_A, src=MAC_B),
        ether(pppoe(0x00, 0x0011, lcp(9, 2, bytes.fromhex("a1b2c3d4"))), SESSION),
        ether(pppoe(0x00, 0x0011, lcp(10, 2, bytes.fromhex("01020304"))), SESSION, dst=MAC_A, src=MAC_B),
        ether(pppoe(0x00, 0x0011, lcp(5, 3, b"bye")), SESSION),
        # IPCP and IP6CP.
        ether(pppoe(0x00, 0x0011, ncp(0x8021, 1, 4, bytes.fromhex("0306c0000201"))), SESSION),
        ether(pppoe(0x00, 0x0011, ncp(0x8021, 3, 4, bytes.fromhex("0306c6336414"))), SESSION, dst=MAC_A, src=MAC_B),
        ether(pppoe(0x00, 0x0011, ncp(0x8057, 1, 5, bytes.fromhex("010a0011223344556677"))), SESSION),
        # IPv4 TCP, IPv4 UDP and IPv6 TCP inside the session.
        ether(pppoe(0x00, 0x0011, struct.pack("!H", 0x0021) + ipv4(tcp(40000, 6969, 1000, 0, SYN, options=pad4(MSS)))), SESSION),
        ether(pppoe(0x00, 0x0011, struct.pack("!H", 0x0021) + ipv4(udp(40001, 7070, b"hello over pppoe"), proto=17)), SESSION, dst=MAC_A, src=MAC_B),
        ether(pppoe(0x00, 0x0011, struct.pack("!H", 0x0057) + ipv6(tcp(40002, 6969, 5, 0, SYN, v6=True))), SESSION),
        # Address/control bytes before the protocol, an unknown PPP protocol, compressed data.
        ether(pppoe(0x00, 0x0011, b"\xff\x03" + struct.pack("!H", 0x0021) + ipv4(udp(40001, 7070, b"ac"), proto=17)), SESSION),
        ether(pppoe(0x00, 0x0011, struct.pack("!H", 0x4021) + b"\x01\x02\x03\x04"), SESSION),
        ether(pppoe(0x00, 0x0011, struct.pack("!H", 0x00FD) + b"\x01\x02"), SESSION),
        # Odd headers: version 2 type 3, unknown code, length past the frame, oversized PADI.
        ether(pppoe(0x09, 0, tag(0x0101), vertype=0x23), DISCOVERY, dst=BROADCAST),
        ether(pppoe(0x42, 0x1234, tag(0x0101, b"x")), DISCOVERY),
        ether(pppoe(0x07, 0, tag(0x0101, b"short"), length=200), DISCOVERY),
        ether(pppoe(0x09, 0, tag(0x0101, b"big"), length=1479), DISCOVERY, dst=BROADCAST),
        ether(pppoe(0x00, 0x0011, lcp(9, 7, bytes.fromhex("a1b2c3d4")), length=300), SESSION),
        # Session with an empty and a one-byte payload.
        ether(pppoe(0x00, 0x0011, b""), SESSION),
        ether(pppoe(0x00, 0x0011, b"\x21"), SESSION),
        # 3Com ethertypes and a session in 802.1Q.
        ether(pppoe(0x09, 0, tag(0x0101)), 0x3C12, dst=BROADCAST),
        ether(pppoe(0x00, 0x0022, lcp(9, 1, bytes.fromhex("00000001"))), 0x3C13),
        ether(struct.pack("!HH", 100, SESSION) + pppoe(0x00, 0x0011, lcp(9, 9, bytes.fromhex("a1b2c3d4"))), ETHERTYPE_VLAN),
    ]
    # Cut by the capture: inside the PPPoE header, inside a tag header, inside a tag value,
    # inside the PPP protocol field (frames shorter than the header: the Ethernet minimum pads them).
    padi = ether(pppoe(0x09, 0, tag(0x0101, b"internet") + host_uniq), DISCOVERY, dst=BROADCAST)
    echo = ether(pppoe(0x00, 0x0011, lcp(9, 2, bytes.fromhex("a1b2c3d4"))), SESSION)
    cut = [Record(padi, caplen=n) for n in (14 + 3, 14 + 6 + 2, 14 + 6 + 4 + 3, 14 + 6 + 12 + 5)]
    cut += [Record(echo, caplen=n) for n in (14 + 7, 14 + 9, 14 + 12)]
    # Shorter than the PPPoE header on the wire (an IEEE 802.3-length frame would be LLC: use
    # a frame whose Ethernet payload is 4 bytes).
    short = ether(b"\x11\x09\x00\x00", DISCOVERY)
    return {"crafted-pppoe.pcap": (1, packets + cut + [short])}
