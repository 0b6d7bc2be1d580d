/// `capture --json`: one compact JSON object per packet, one per line, keys always in this order.
///
/// ```
/// {"time":"2026-11-22T10:00:00.123456Z","len":59,"caplen":59,"link":"EN10MB","ip":4,
///  "src":"127.0.0.1","dst":"127.0.0.1","proto":"tcp","sport":5000,"dport":6969,"flags":"P.",
///  "seq":1001,"ack":2002,"win":512,"payload_len":5,"payload":"aGVsbG8="}
/// ```
/// (shown wrapped; the real line has no newline inside). Keys, in order, and when present:
/// - `time`: UTC, ISO 8601, 6 fraction digits for microsecond captures, 9 for nanosecond ones
///   (an out-of-range fraction is printed as stored, e.g. `.2000000`); `len` (wire), `caplen`;
///   `link`: the `LINKTYPE_` name (`EN10MB`, `LINUX_SLL2`, `RAW` …, `LINKTYPE_n` when unknown).
/// - `invalid`: `true` for a record no decoder may look at (caplen 0, len 0, caplen > len, or either
///   over 262144) — nothing follows it.
/// - For IPv4/IPv6: `ip` (4 or 6), `src`, `dst` (tcpdump `-n` text), `proto` (`tcp`, `udp`, `icmp`,
///   `icmp6`, `igmp`, `gre`, `esp`, `ah`, `sctp`, else `ip-proto-N`); `fragment: true` for IP
///   fragments and `malformed: true` when the TCP/UDP header is cut short or invalid — for both,
///   no port keys follow.
/// - TCP: `sport`, `dport`, `flags` (tcpdump's letters in its order `FSRP.UEW`, `none` for no
///   flags, e.g. `"S."`), `seq`, `ack` (raw 32-bit fields, absolute), `win` (raw, unscaled);
///   UDP: `sport`, `dport`. Both: `payload_len` (from the headers: what the wire carried),
///   `payload` (standard base64 with padding, of the captured payload bytes), and `truncated: true`
///   when fewer payload bytes were captured than `payload_len`.
///
/// Frames that are not IP (ARP …) or whose IP header is cut short stop after `link`.
/// All strings this writes are ASCII without characters that need escaping.
public enum PacketJSON {
    /// Appends the object for one packet and a newline.
    public static func append(_ header: PacketHeader, _ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        _ = appendFields(header, bytes, into: &out)
        out.append("}\n")
    }

    /// Everything of the object but its closing brace; the TCP segment or UDP datagram found, if
    /// any, for ``PacketJSONWriter`` to add the protocol views.
    static func appendFields(_ header: PacketHeader, _ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) -> TransportSegment? {
        out.append("{\"time\":\"")
        appendTime(header, into: &out)
        out.append("\",\"len\":")
        out.appendDecimal(UInt64(max(0, header.originalLength)), minimumDigits: 1)
        out.append(",\"caplen\":")
        out.appendDecimal(UInt64(max(0, header.capturedLength)), minimumDigits: 1)
        out.append(",\"link\":\"")
        appendLinkName(header.linkType, into: &out)
        out.append("\"")
        let limit = UInt64(PacketPrinter.maximumSnapshotLength)
        let caplen = UInt64(max(0, header.capturedLength))
        let len = UInt64(max(0, header.originalLength))
        if caplen == 0 || len == 0 || len < caplen || caplen > limit || len > limit {
            out.append(",\"invalid\":true")
            return nil
        }
        guard let ip = IPDatagram.parse(header, bytes) else { return nil }
        out.append(",\"ip\":")
        out.appendDecimal(ip.version)
        out.append(",\"src\":\"")
        ip.source.appendText(into: &out)
        out.append("\",\"dst\":\"")
        ip.destination.appendText(into: &out)
        out.append("\",\"proto\":\"")
        appendProtocolName(ip.transportProtocol, into: &out)
        out.append("\"")
        if ip.fragmentOffsetOrMore {
            out.append(",\"fragment\":true")
            return nil
        }
        guard ip.transportProtocol == 6 || ip.transportProtocol == 17 else { return nil }
        guard let segment = TransportSegment.parseTransport(ip, bytes) else {
            out.append(",\"malformed\":true")
            return nil
        }
        out.append(",\"sport\":")
        out.appendDecimal(segment.sourcePort)
        out.append(",\"dport\":")
        out.appendDecimal(segment.destinationPort)
        if segment.transport == .tcp {
            out.append(",\"flags\":\"")
            segment.flags.appendTcpdumpLetters(into: &out)
            out.append("\",\"seq\":")
            out.appendDecimal(segment.sequenceNumber)
            out.append(",\"ack\":")
            out.appendDecimal(segment.acknowledgmentNumber)
            out.append(",\"win\":")
            out.appendDecimal(segment.window)
        }
        out.append(",\"payload_len\":")
        out.appendDecimal(UInt64(max(0, segment.payloadLength)), minimumDigits: 1)
        out.append(",\"payload\":\"")
        appendBase64(segment.payload(in: ip.cursor.bytes), into: &out)
        out.append("\"")
        if segment.isPayloadTruncated { out.append(",\"truncated\":true") }
        return segment
    }

    /// The object for one packet as a string, without the newline (tests and small callers).
    public static func line(_ header: PacketHeader, _ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        bytes.withUnsafeBytes { append(header, $0, into: &out) }
        if out.last == 0x0A { out.removeLast() }
        return String(decoding: out, as: UTF8.self)
    }

    private static let base64Alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Standard base64 (RFC 4648 §4) with `=` padding, no line breaks.
    package static func appendBase64(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        let count = bytes.count
        guard count > 0 else { return }
        out.reserveCapacity(out.count + (count + 2) / 3 * 4)
        base64Alphabet.withUnsafeBufferPointer { alphabet in
            var index = 0
            while index + 3 <= count {
                let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                out.append(alphabet[Int(value >> 18)])
                out.append(alphabet[Int(value >> 12 & 63)])
                out.append(alphabet[Int(value >> 6 & 63)])
                out.append(alphabet[Int(value & 63)])
                index += 3
            }
            let rest = count - index
            guard rest > 0 else { return }
            let value = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            out.append(alphabet[Int(value >> 18)])
            out.append(alphabet[Int(value >> 12 & 63)])
            out.append(rest == 2 ? alphabet[Int(value >> 6 & 63)] : UInt8(ascii: "="))
            out.append(UInt8(ascii: "="))
        }
    }

    /// `2026-11-22T10:00:00.123456Z`: proleptic Gregorian UTC (years before 1 or after 9999 print
    /// with a sign or more digits rather than failing).
    static func appendTime(_ header: PacketHeader, into out: inout [UInt8]) {
        out.appendUTCDateTime(header.seconds)
        out.append(".")
        out.appendDecimal(UInt64(header.fraction), minimumDigits: header.precision == .nanoseconds ? 9 : 6)
        out.append("Z")
    }

    private static func appendLinkName(_ linkType: LinkType, into out: inout [UInt8]) {
        switch linkType {
        case .null: out.append("NULL")
        case .ethernet: out.append("EN10MB")
        case .raw: out.append("RAW")
        case .loop: out.append("LOOP")
        case .linuxSLL: out.append("LINUX_SLL")
        case .ipv4: out.append("IPV4")
        case .ipv6: out.append("IPV6")
        case .linuxSLL2: out.append("LINUX_SLL2")
        default:
            out.append("LINKTYPE_")
            out.appendDecimal(linkType.rawValue)
        }
    }

    private static func appendProtocolName(_ value: UInt8, into out: inout [UInt8]) {
        switch value {
        case 1: out.append("icmp")
        case 2: out.append("igmp")
        case 6: out.append("tcp")
        case 17: out.append("udp")
        case 47: out.append("gre")
        case 50: out.append("esp")
        case 51: out.append("ah")
        case 58: out.append("icmp6")
        case 132: out.append("sctp")
        default:
            out.append("ip-proto-")
            out.appendDecimal(value)
        }
    }
}
