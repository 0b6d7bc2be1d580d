/// The Internet checksum (RFC 1071) the way tcpdump's `in_cksum` and `in_cksum_shouldbe`
/// compute it for `-v`: IPv4 headers, TCP and UDP over their pseudo-headers, ICMP and ICMPv6.
///
/// A running one's-complement sum: ``add(_:)`` takes bytes (big-endian 16-bit words; an odd
/// last byte is the high half of a word padded with zero), ``add(word:)`` one word of a
/// pseudo-header. Every piece but the last must have an even length, which the pseudo-headers
/// have. The bytes are read four at a time into a 64-bit accumulator (2^32 words before it could
/// overflow, far beyond any captured packet) and folded once at the end.
struct InternetChecksum {
    private var sum: UInt64 = 0

    /// Adds `bytes` (big-endian words; an odd last byte padded with a zero byte).
    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        let count = bytes.count
        var index = 0
        var total = sum
        while index + 4 <= count {
            total &+= UInt64(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self)))
            index += 4
        }
        if index + 2 <= count {
            total &+= UInt64(bytes[index]) << 8 | UInt64(bytes[index + 1])
            index += 2
        }
        if index < count {
            total &+= UInt64(bytes[index]) << 8
        }
        sum = total
    }

    /// Adds `count` bytes of `cursor` at `offset`; the caller has checked they are captured.
    mutating func add(_ cursor: ByteCursor, at offset: Int, count: Int) {
        guard count > 0, cursor.has(offset, count) else { return }
        add(UnsafeRawBufferPointer(rebasing: cursor.bytes[offset..<(offset + count)]))
    }

    /// tcpdump's `in_cksum` over one piece of bytes: ``result`` for the `count` bytes of `cursor`
    /// at `offset` (which the caller has checked are captured; 0 when they, checksum field
    /// included, are correct). The IPv4 header, ICMP, IGMP and ICMP extension checksums.
    static func result(_ cursor: ByteCursor, at offset: Int, count: Int) -> UInt16 {
        var checksum = InternetChecksum()
        checksum.add(cursor, at: offset, count: count)
        return checksum.result
    }

    /// ``result`` for bytes outside a capture: the headers ``SyntheticConnection`` makes up for
    /// `--record`.
    static func result(_ bytes: [UInt8]) -> UInt16 {
        var checksum = InternetChecksum()
        bytes.withUnsafeBytes { checksum.add($0) }
        return checksum.result
    }

    /// Adds one 16-bit word.
    mutating func add(word: UInt16) {
        sum &+= UInt64(word)
    }

    /// Adds a 32-bit value as two words.
    mutating func add(long: UInt32) {
        sum &+= UInt64(long >> 16) &+ UInt64(long & 0xFFFF)
    }

    /// tcpdump's `in_cksum` result: the complement of the folded sum, 0 when the data (with its
    /// checksum field) is correct.
    var result: UInt16 {
        var folded = sum
        while folded >> 16 != 0 {
            folded = (folded & 0xFFFF) &+ (folded >> 16)
        }
        return ~UInt16(truncatingIfNeeded: folded)
    }

    /// tcpdump's `in_cksum_shouldbe`: the value the checksum field should hold, from the field and
    /// the ``result`` computed over the data including it.
    static func shouldBe(field: UInt16, result: UInt16) -> UInt16 {
        var value = UInt32(field) + UInt32(result)
        value = (value & 0xFFFF) + (value >> 16)
        value = (value & 0xFFFF) + (value >> 16)
        return UInt16(truncatingIfNeeded: value)
    }
}

/// The pseudo-headers TCP, UDP and ICMPv6 checksums cover (tcpdump's `nextproto4_cksum` and
/// `nextproto6_cksum`).
extension PacketPrinter {
    /// tcpdump's `in_cksum` over the pseudo-header of the IP header at `ip.offset` and the
    /// `length` bytes at `offset` (which the caller has checked are captured): 0 when correct.
    /// The pseudo-header's destination is the last address of a source route (IPv4 LSRR/SSRR,
    /// IPv6 routing header) when there is one, as tcpdump's `ip_finddst` and `ip6_finddst` find it.
    func pseudoHeaderChecksum(
        _ cursor: ByteCursor, ip: IPContext, at offset: Int, length: Int, nextProtocol: UInt8
    ) throws(PacketDecodingError) -> UInt16 {
        var checksum = InternetChecksum()
        if ip.isIPv6 {
            try cursor.check(ip.offset + 8, 16)
            checksum.add(cursor, at: ip.offset + 8, count: 16)
            let destination = try ipv6PseudoHeaderDestination(cursor, ip: ip.offset)
            checksum.add(cursor, at: destination, count: 16)
            checksum.add(long: UInt32(truncatingIfNeeded: length))
            checksum.add(word: UInt16(nextProtocol))
        } else {
            try cursor.check(ip.offset + 12, 8)
            checksum.add(cursor, at: ip.offset + 12, count: 4)
            let headerLength = Int(try cursor.u8(ip.offset) & 0x0F) * 4
            let destination = headerLength == 20 ? ip.offset + 16 : try ipv4PseudoHeaderDestination(cursor, ip: ip.offset)
            checksum.add(cursor, at: destination, count: 4)
            checksum.add(word: UInt16(nextProtocol))
            checksum.add(word: UInt16(truncatingIfNeeded: length))
        }
        checksum.add(cursor, at: offset, count: length)
        return checksum.result
    }

    /// tcpdump's `ip_finddst`: where the final destination of a loose or strict source route
    /// option is, else the header's destination address.
    private func ipv4PseudoHeaderDestination(_ cursor: ByteCursor, ip: Int) throws(PacketDecodingError) -> Int {
        let headerLength = Int(try cursor.u8(ip) & 0x0F) * 4
        guard headerLength >= 20 else { return ip + 16 }
        var remaining = headerLength - 20
        var offset = ip + 20
        while remaining != 0 {
            let type = try cursor.u8(offset)
            if type == 0 { break }
            let optionLength: Int
            if type == 1 {
                optionLength = 1
            } else {
                optionLength = Int(try cursor.u8(offset + 1))
                if optionLength < 2 { break }
            }
            if remaining < optionLength || !cursor.has(offset, optionLength) { break }
            if (type == 131 || type == 137) && optionLength >= 7 {
                try cursor.check(offset + optionLength - 4, 4)
                return offset + optionLength - 4
            }
            offset += optionLength
            remaining -= optionLength
        }
        return ip + 16
    }

    /// tcpdump's `ip6_finddst`: the final destination of the first routing header (type 0 or 2:
    /// its last captured address; type 4: its first segment), else the header's destination.
    /// Only looked for when the IPv6 header is followed by an extension header.
    private func ipv6PseudoHeaderDestination(_ cursor: ByteCursor, ip: Int) throws(PacketDecodingError) -> Int {
        var destination = ip + 24
        var nextHeader = try cursor.u8(ip + 6)
        switch nextHeader {
        case 0, 60, 62, 135, 44, 43: break
        default: return destination
        }
        var offset = ip
        var advance = 40
        while offset < cursor.end {
            offset += advance
            switch nextHeader {
            case 0, 60, 62, 135:
                advance = (Int(try cursor.u8(offset + 1)) + 1) * 8
                nextHeader = try cursor.u8(offset)
            case 44:
                advance = 8
                nextHeader = try cursor.u8(offset)
            case 43:
                guard cursor.has(offset, 4) else { return destination }
                let length = Int(try cursor.u8(offset + 1))
                switch try cursor.u8(offset + 2) {
                case 0, 2:
                    guard length % 2 == 0 else { return destination }
                    var address = offset + 8
                    for _ in 0..<(length / 2) {
                        guard cursor.has(address, 16) else { return destination }
                        destination = address
                        address += 16
                    }
                case 4:
                    guard length % 2 == 0, cursor.has(offset + 8, 16) else { return destination }
                    destination = offset + 8
                default:
                    break
                }
                return destination
            default:
                return destination
            }
        }
        return destination
    }
}
