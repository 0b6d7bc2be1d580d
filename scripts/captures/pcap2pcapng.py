#!/usr/bin/env python3
"""Merges classic pcap files into one pcapng file, one interface per input (stdlib only).

  pcap2pcapng.py OUT.pcapng IN0.pcap [IN1.pcap ...]

tcpdump cannot write pcapng and editcap is not installed, so this writes it: a Section
Header Block (with a shb_userappl option), one Interface Description Block per input
(its link type and snaplen, if_name option `in0`, `in1`, ...; if_tsresol 9 for
nanosecond inputs), then an Enhanced Packet Block per packet in timestamp order, each with
an opt_comment option. libpcap 1.10 refuses interfaces whose link types or snaplens differ,
so the inputs must agree on both.
"""
import struct
import sys


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        endian = "<"
    else:
        endian = ">"
        magic = struct.unpack(">I", data[:4])[0]
    nano = magic == 0xA1B23C4D
    _, _, _, _, snaplen, linktype = struct.unpack(endian + "HHiIII", data[4:24])
    packets = []
    offset = 24
    while offset + 16 <= len(data):
        sec, frac, caplen, length = struct.unpack(endian + "IIII", data[offset:offset + 16])
        offset += 16
        packets.append((sec * 1_000_000_000 + (frac if nano else frac * 1000), data[offset:offset + caplen], length))
        offset += caplen
    return linktype, snaplen, nano, packets


def option(code, value):
    pad = (4 - len(value) % 4) % 4
    return struct.pack("<HH", code, len(value)) + value + b"\0" * pad


def block(kind, body):
    total = 12 + len(body)
    return struct.pack("<II", kind, total) + body + struct.pack("<I", total)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, inputs = sys.argv[1], sys.argv[2:]
    blob = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)
                 + option(4, b"sockctl scripts/captures/pcap2pcapng.py") + option(0, b""))
    events = []
    for index, path in enumerate(inputs):
        linktype, snaplen, nano, packets = read_pcap(path)
        options = option(2, b"in%d" % index)
        if nano:
            options += option(9, b"\x09")
        blob += block(0x00000001, struct.pack("<HHI", linktype, 0, snaplen) + options + option(0, b""))
        for ns, data, length in packets:
            events.append((ns, index, data, length, nano))
    events.sort(key=lambda e: (e[0], e[1]))
    for number, (ns, index, data, length, nano) in enumerate(events):
        units = ns if nano else ns // 1000
        pad = (4 - len(data) % 4) % 4
        body = struct.pack("<IIIII", index, units >> 32, units & 0xFFFFFFFF, len(data), length) + data + b"\0" * pad
        body += option(1, b"packet %d from %s" % (number, inputs[index].rsplit("/", 1)[-1].encode())) + option(0, b"")
        blob += block(0x00000006, body)
    with open(out, "wb") as f:
        f.write(blob)


if __name__ == "__main__":
    main()
