/// The Internet checksum (RFC 1071) as tcpdump's `in_cksum` computes it over captured bytes:
/// a 32-bit accumulator of big-endian 16-bit words, folded at the end. IGMP checks its message
/// with it, DCCP its header and covered payload after a pseudo-header.
struct OnesComplementSum {
    private var total: UInt64 = 0
    /// A byte left over from an odd-length run, paired with the next run's first byte.
    private var pendingHigh: UInt8?

    /// Adds `count` bytes at `offset` (the caller has checked they were captured).
    mutating func add(_ cursor: ByteCursor, at offset: Int, count: Int) {
        var index = offset
        let end = offset + count
        if let high = pendingHigh, index < end {
            total &+= UInt64(high) << 8 | UInt64(cursor.bytes[index])
            pendingHigh = nil
            index += 1
        }
        while index + 1 < end {
            total &+= UInt64(cursor.bytes[index]) << 8 | UInt64(cursor.bytes[index + 1])
            index += 2
        }
        if index < end { pendingHigh = cursor.bytes[index] }
    }

    /// Adds one 16-bit word (pseudo-header fields).
    mutating func add(word: UInt16) {
        total &+= UInt64(word)
    }

    /// The complemented folded sum: 0 when the covered bytes carry a correct checksum.
    var result: UInt16 {
        var sum = total
        if let high = pendingHigh { sum &+= UInt64(high) << 8 }
        while sum >> 16 != 0 { sum = (sum & 0xFFFF) &+ (sum >> 16) }
        return ~UInt16(truncatingIfNeeded: sum)
    }

    /// tcpdump's `in_cksum_shouldbe`: the checksum field value that would have made the sum
    /// correct, given the field as sent and the sum computed over it.
    static func shouldBe(sent: UInt16, computed: UInt16) -> UInt16 {
        var shouldBe = UInt32(sent)
        shouldBe += UInt32(computed)
        shouldBe = (shouldBe & 0xFFFF) + (shouldBe >> 16)
        shouldBe = (shouldBe & 0xFFFF) + (shouldBe >> 16)
        return UInt16(truncatingIfNeeded: shouldBe)
    }
}
