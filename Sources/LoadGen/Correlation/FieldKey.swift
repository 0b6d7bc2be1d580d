/// The value a ``MessageField`` found in a message, as a small fixed-size key: what a
/// connection's open requests are looked up by (`--correlate`) and labels are counted by
/// (`--label`), without a `String` or an array per message.
///
/// A value of up to 16 bytes is held exactly (its bytes and its length), so two different
/// short values never share a key — the ids, numbers and names keys usually are. A longer
/// value is held as two independent 64-bit hashes of its bytes and its length: two different
/// long values share a key only by a collision of both hashes.
package struct FieldKey: Hashable, Sendable {
    /// The first 8 bytes (little-endian), or the first hash.
    var first: UInt64
    /// Bytes 9 to 16, or the second hash.
    var second: UInt64
    /// The value's length in bytes.
    var length: Int

    /// The key of `bytes`.
    package init<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        var builder = Builder()
        for byte in bytes { builder.append(byte) }
        self = builder.key
    }

    init(first: UInt64, second: UInt64, length: Int) {
        self.first = first
        self.second = second
        self.length = length
    }

    /// Builds a key one byte at a time (a JSON string is unescaped into it as it is read).
    struct Builder {
        private var head: UInt64 = 0
        private var tail: UInt64 = 0
        /// FNV-1a, 64 bits.
        private var hashA: UInt64 = 0xcbf2_9ce4_8422_2325
        /// A multiply–rotate hash with other constants, so that the two are independent.
        private var hashB: UInt64 = 0x9e37_79b9_7f4a_7c15
        private(set) var count = 0

        @inline(__always)
        mutating func append(_ byte: UInt8) {
            if count < 8 {
                head |= UInt64(byte) << UInt64(count * 8)
            } else if count < 16 {
                tail |= UInt64(byte) << UInt64((count - 8) * 8)
            }
            hashA = (hashA ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            hashB = ((hashB ^ UInt64(byte)) &* 0xff51_afd7_ed55_8ccd)
            hashB = (hashB << 29) | (hashB >> 35)
            count &+= 1
        }

        /// Appends every byte of `bytes`.
        @inline(__always)
        mutating func append(_ bytes: UnsafeRawBufferPointer) {
            for byte in bytes { append(byte) }
        }

        var key: FieldKey {
            count <= 16 ? FieldKey(first: head, second: tail, length: count) : FieldKey(first: hashA, second: hashB, length: count)
        }
    }
}
