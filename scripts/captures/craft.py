"""Packet building blocks for the crafted captures (Python 3 stdlib only): Ethernet, IPv4,
IPv6, TCP and UDP with correct checksums, TCP options, and a pcap writer with deterministic
timestamps (from 2023-11-14 22:13:20 UTC, 1 ms apart). Used by make-crafted.py and by the
per-topic modules in crafted/ (`from craft import *`).
"""
import struct

BASE_SEC = 1700000000
MAC_A = bytes.fromhex("02000000000a")
MAC_B = bytes.fromhex("020000000014")
V4_A, V4_B = bytes([192, 0, 2, 10]), bytes([198, 51, 100, 20])
LO4 = bytes([127, 0, 0, 1])
V6_A = bytes.fromhex("20010db8000000000000000000000010")
V6_B = bytes.fromhex("20010db8000000000000000000000020")
LO6 = bytes(15) + b"\x01"

ETHERTYPE_IP, ETHERTYPE_IPV6, ETHERTYPE_ARP, ETHERTYPE_VLAN = 0x0800, 0x86DD, 0x0806, 0x8100
FIN, SYN, RST, PSH, ACK, URG, ECE, CWR = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80
JSON = b'{"id":7,"op":"set","key":"k","value":[1,2,3]}\r\n'


# ---------------------------------------------------------------- checksums and layers

def csum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return (~total) & 0xFFFF


def ether(payload, ethertype=ETHERTYPE_IP, dst=MAC_B, src=MAC_A):
    return dst + src + struct.pack("!H", ethertype) + payload


def ipv4(payload, proto=6, src=V4_A, dst=V4_B, options=b"", ident=0x1234, frag=0x4000, ttl=64,
         total_length=None, ihl=None, version=4):
    ihl = ihl if ihl is not None else (20 + len(options)) // 4
    total = total_length if total_length is not None else 20 + len(options) + len(payload)
    header = struct.pack("!BBHHHBBH4s4s", (version << 4) | (ihl & 0xF), 0, total & 0xFFFF, ident, frag, ttl, proto, 0, src, dst) + options
    header = header[:10] + struct.pack("!H", csum(header)) + header[12:]
    return header + payload


def ipv6(payload, nh=6, src=V6_A, dst=V6_B, plen=None):
    plen = plen if plen is not None else len(payload)
    return struct.pack("!IHBB16s16s", 0x60000000, plen & 0xFFFF, nh, 64, src, dst) + payload


def pseudo4(src, dst, proto, length):
    return struct.pack("!4s4sBBH", src, dst, 0, proto, length)


def pseudo6(src, dst, proto, length):
    return struct.pack("!16s16sIxxxB", src, dst, length, proto)


def tcp(sport, dport, seq, ack, flags, win=502, options=b"", payload=b"", doff=None, urg=0, src=V4_A, dst=V4_B, v6=False):
    if len(options) % 4:
        raise ValueError("pad options")
    doff = doff if doff is not None else 5 + len(options) // 4
    header = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, (doff & 0xF) << 4, flags, win, 0, urg) + options
    segment = header + payload
    pseudo = pseudo6(src, dst, 6, len(segment)) if v6 else pseudo4(src, dst, 6, len(segment))
    c = csum(pseudo + segment)
    return segment[:16] + struct.pack("!H", c) + segment[18:]


def udp(sport, dport, payload, length=None, src=V4_A, dst=V4_B, v6=False):
    length = length if length is not None else 8 + len(payload)
    segment = struct.pack("!HHHH", sport, dport, length, 0) + payload
    pseudo = pseudo6(src, dst, 17, len(segment)) if v6 else pseudo4(src, dst, 17, len(segment))
    return segment[:6] + struct.pack("!H", csum(pseudo + segment) or 0xFFFF) + segment[8:]


def tcp4(sport, dport, seq, ack, flags, src=V4_A, dst=V4_B, **kw):
    """An Ethernet/IPv4/TCP frame."""
    return ether(ipv4(tcp(sport, dport, seq, ack, flags, src=src, dst=dst, **kw), src=src, dst=dst))


def tcp6(sport, dport, seq, ack, flags, src=V6_A, dst=V6_B, **kw):
    return ether(ipv6(tcp(sport, dport, seq, ack, flags, src=src, dst=dst, v6=True, **kw), src=src, dst=dst), ETHERTYPE_IPV6)


def pad4(options):
    return options + b"\x01" * ((4 - len(options) % 4) % 4)


def opt(kind, data=b"", length=None):
    return bytes([kind, length if length is not None else 2 + len(data)]) + data


MSS = opt(2, struct.pack("!H", 1460))
SACKOK = opt(4)
WS7 = opt(3, b"\x07")
NOP = b"\x01"
EOL = b"\x00"


def ts(val, ecr):
    return opt(8, struct.pack("!II", val, ecr))


# ---------------------------------------------------------------- pcap writing

class Record:
    def __init__(self, data, caplen=None, length=None, sec=None, frac=None):
        self.data, self.caplen, self.length, self.sec, self.frac = data, caplen, length, sec, frac


def write_pcap(path, linktype, packets, snaplen=262144, nano=False, big_endian=False):
    e = ">" if big_endian else "<"
    magic = 0xA1B23C4D if nano else 0xA1B2C3D4
    out = [struct.pack(e + "IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype)]
    for i, p in enumerate(packets):
        if not isinstance(p, Record):
            p = Record(p)
        captured = p.data if p.caplen is None else p.data[:p.caplen]
        caplen = len(captured) if p.caplen is None or p.caplen <= len(p.data) else p.caplen
        length = p.length if p.length is not None else len(p.data)
        sec = p.sec if p.sec is not None else BASE_SEC + i // 1000
        frac = p.frac if p.frac is not None else (i % 1000) * 1000 * (1000 if nano else 1) + 123 * (1 if nano else 0)
        out.append(struct.pack(e + "IIII", sec, frac, caplen, length) + captured)
    with open(path, "wb") as f:
        f.write(b"".join(out))
