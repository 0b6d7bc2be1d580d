/// One TCP segment or UDP datagram found in a captured frame: the addresses, ports and TCP
/// header fields `--follow` and `--json` need, and where the payload lies in the captured bytes.
///
/// ```
/// | link header | IPv4/IPv6 (+ extension headers) | TCP/UDP header | payload ... (captured) | ... (not captured)
///                                                                  ^ payloadRange            ^ payloadLength ends here
/// ```
///
/// ``parse(_:_:)`` understands the link types of ``LinkType`` (Ethernet with any number of
/// 802.1Q/802.1ad tags, Linux cooked v1 and v2, BSD NULL/LOOP, raw IP, raw IPv4, raw IPv6), IPv4
/// and IPv6 with Hop-by-Hop, Routing and Destination Options headers. It returns nil — not an
/// error — for everything else: ARP, ICMP, other protocols, IP fragments (not reassembled),
/// malformed headers (IPv4 IHL < 5, total length < IHL, TCP data offset < 5 or beyond the
/// segment, UDP length 1…7) and frames cut before the end of the TCP or UDP header.
///
/// Lengths follow the IP header, not the capture: ``payloadLength`` is what the packet carried
/// on the wire, ``payloadRange`` the part of it that was captured (``isPayloadTruncated`` when
/// that is less). Ethernet padding is never payload. An IPv4 total length of 0 or an IPv6
/// payload length of 0 (segmentation offload, jumbograms) means "up to the end of the frame".
public struct TransportSegment: Sendable, Equatable {
    /// An IPv4 or IPv6 address, stored as integers so parsing allocates nothing.
    public enum Address: Hashable, Sendable, Comparable, CustomStringConvertible {
        case v4(UInt32)
        /// The 128 bits as two big-endian halves.
        case v6(UInt64, UInt64)

        /// `127.0.0.1` or RFC 5952 text as tcpdump prints it (`::1`, `fe80::1`, `::ffff:10.0.0.1`).
        public var description: String {
            var out: [UInt8] = []
            appendText(into: &out)
            return String(decoding: out, as: UTF8.self)
        }

        /// Appends ``description`` without going through `String`.
        package func appendText(into out: inout [UInt8]) {
            switch self {
            case .v4(let value):
                for shift in stride(from: 24, through: 0, by: -8) {
                    if shift != 24 { out.append(UInt8(ascii: ".")) }
                    out.appendDecimal(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
                }
            case .v6(let high, let low):
                out.appendIPv6(high: high, low: low)
            }
        }

        /// IPv4 before IPv6, each in numeric order.
        public static func < (lhs: Address, rhs: Address) -> Bool {
            switch (lhs, rhs) {
            case (.v4(let a), .v4(let b)): a < b
            case (.v4, .v6): true
            case (.v6, .v4): false
            case (.v6(let a1, let a2), .v6(let b1, let b2)): a1 < b1 || (a1 == b1 && a2 < b2)
            }
        }
    }

    /// Whether the segment is TCP or UDP.
    public enum TransportProtocol: Sendable, Equatable {
        case tcp
        case udp
    }

    /// TCP header flag bits (the low 8 bits of the flags field).
    public struct TCPFlags: OptionSet, Sendable, Hashable {
        /// The flag bits as in the header byte (FIN is bit 0, CWR bit 7).
        public let rawValue: UInt8
        /// The flags of a TCP header's flag byte.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        package static let fin = TCPFlags(rawValue: 0x01)
        package static let syn = TCPFlags(rawValue: 0x02)
        package static let rst = TCPFlags(rawValue: 0x04)
        package static let psh = TCPFlags(rawValue: 0x08)
        package static let ack = TCPFlags(rawValue: 0x10)
        package static let urg = TCPFlags(rawValue: 0x20)
        package static let ece = TCPFlags(rawValue: 0x40)
        package static let cwr = TCPFlags(rawValue: 0x80)

        /// tcpdump's letters in its order (`F S R P . U E W`), e.g. `S.`, `FP.`; `none` for no bits.
        package var tcpdumpLetters: String {
            var out: [UInt8] = []
            appendTcpdumpLetters(into: &out)
            return String(decoding: out, as: UTF8.self)
        }

        package func appendTcpdumpLetters(into out: inout [UInt8]) {
            guard rawValue != 0 else {
                out.append("none")
                return
            }
            let letters: StaticString = "FSRP.UEW"
            letters.withUTF8Buffer { text in
                for bit in 0..<8 where rawValue & (1 << UInt8(bit)) != 0 {
                    out.append(text[bit])
                }
            }
        }
    }

    /// 4 or 6.
    package var ipVersion: UInt8
    /// The sender's IP address.
    public var source: Address
    package var destination: Address
    /// TCP or UDP; the TCP-only fields are zero or empty for UDP.
    public var transport: TransportProtocol
    package var sourcePort: UInt16
    package var destinationPort: UInt16
    /// TCP only (0 for UDP).
    package var sequenceNumber: UInt32 = 0
    /// TCP only (0 for UDP); meaningful when ``flags`` has ``TCPFlags/ack``.
    package var acknowledgmentNumber: UInt32 = 0
    /// TCP only (empty for UDP).
    package var flags: TCPFlags = []
    /// TCP only: the raw, unscaled window field.
    package var window: UInt16 = 0
    /// Where the captured part of the payload lies in the frame's captured bytes.
    package var payloadRange: Range<Int>
    /// Payload bytes the packet carried on the wire (from the IP, TCP and UDP length fields).
    package var payloadLength: Int

    /// The capture holds fewer payload bytes than the packet carried (snap length, cut frame).
    package var isPayloadTruncated: Bool { payloadRange.count < payloadLength }

    /// The captured payload, as a view into `bytes` (the same buffer given to ``parse(_:_:)``).
    public func payload(in bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard payloadRange.lowerBound >= 0, payloadRange.upperBound <= bytes.count else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(rebasing: bytes[payloadRange])
    }

    /// The TCP segment or UDP datagram in a captured frame, or nil when there is none (see the
    /// type's discussion). Reads at most `min(bytes.count, header.capturedLength)` bytes.
    package static func parse(_ header: PacketHeader, _ bytes: UnsafeRawBufferPointer) -> TransportSegment? {
        guard let datagram = IPDatagram.parse(header, bytes), !datagram.fragmentOffsetOrMore else { return nil }
        return parseTransport(datagram, bytes)
    }

    static func parseTransport(_ ip: IPDatagram, _ bytes: UnsafeRawBufferPointer) -> TransportSegment? {
        let cursor = ip.cursor
        let start = ip.transportOffset
        switch ip.transportProtocol {
        case 6:
            guard cursor.has(start, 20), ip.transportLength >= 20 else { return nil }
            let dataOffset = Int(cursor.bytes[start + 12] >> 4) * 4
            guard dataOffset >= 20, dataOffset <= ip.transportLength else { return nil }
            let payloadStart = start + dataOffset
            let payloadLength = ip.transportLength - dataOffset
            let capturedEnd = min(cursor.end, payloadStart + payloadLength)
            var segment = TransportSegment(
                ipVersion: ip.version, source: ip.source, destination: ip.destination, transport: .tcp,
                sourcePort: read16(cursor, start), destinationPort: read16(cursor, start + 2),
                payloadRange: payloadStart..<max(payloadStart, capturedEnd), payloadLength: payloadLength
            )
            segment.sequenceNumber = read32(cursor, start + 4)
            segment.acknowledgmentNumber = read32(cursor, start + 8)
            segment.flags = TCPFlags(rawValue: cursor.bytes[start + 13])
            segment.window = read16(cursor, start + 14)
            return segment
        case 17:
            guard cursor.has(start, 8), ip.transportLength >= 8 else { return nil }
            let udpLength = Int(read16(cursor, start + 4))
            if udpLength > 0 && udpLength < 8 { return nil }
            // 0 (jumbogram, offload) or more than IP carried: the IP length decides.
            let datagramLength = udpLength == 0 || udpLength > ip.transportLength ? ip.transportLength : udpLength
            let payloadStart = start + 8
            let payloadLength = datagramLength - 8
            let capturedEnd = min(cursor.end, payloadStart + payloadLength)
            return TransportSegment(
                ipVersion: ip.version, source: ip.source, destination: ip.destination, transport: .udp,
                sourcePort: read16(cursor, start), destinationPort: read16(cursor, start + 2),
                payloadRange: payloadStart..<max(payloadStart, capturedEnd), payloadLength: payloadLength
            )
        default:
            return nil
        }
    }

    /// Callers checked `cursor.has(offset, 2)`.
    private static func read16(_ cursor: ByteCursor, _ offset: Int) -> UInt16 {
        UInt16(cursor.bytes[offset]) << 8 | UInt16(cursor.bytes[offset + 1])
    }

    private static func read32(_ cursor: ByteCursor, _ offset: Int) -> UInt32 {
        UInt32(read16(cursor, offset)) << 16 | UInt32(read16(cursor, offset + 2))
    }
}
