/// A bounds-checked, read-only view of one captured frame.
///
/// Every read checks against ``end``, the current end of the bytes a dissector may look at
/// (the captured length, narrowed to an IP datagram's own length by ``narrow(to:)`` so Ethernet
/// padding is never decoded as payload). A read past it throws
/// ``PacketDecodingError/capturedBytesEnd`` — the Swift counterpart of tcpdump's `longjmp` out
/// of a printer — and never traps.
struct ByteCursor {
    let bytes: UnsafeRawBufferPointer
    /// One past the last byte a dissector may read; never more than `bytes.count`.
    private(set) var end: Int

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        self.end = bytes.count
    }

    /// True when `count` bytes starting at `offset` are available.
    @inline(__always)
    func has(_ offset: Int, _ count: Int) -> Bool {
        offset >= 0 && count >= 0 && offset <= end && count <= end - offset
    }

    /// Bytes available from `offset` to ``end`` (0 when `offset` is past it).
    func available(from offset: Int) -> Int {
        offset >= end ? 0 : end - max(offset, 0)
    }

    /// Narrows ``end`` to `offset + length` when that is smaller (tcpdump's `nd_push_snaplen`).
    mutating func narrow(from offset: Int, length: Int) {
        if offset >= 0, length >= 0, offset <= end, length < end - offset {
            end = offset + length
        }
    }

    @inline(__always)
    func u8(_ offset: Int) throws(PacketDecodingError) -> UInt8 {
        guard has(offset, 1) else { throw PacketDecodingError.capturedBytesEnd }
        return bytes[offset]
    }

    @inline(__always)
    func u16(_ offset: Int) throws(PacketDecodingError) -> UInt16 {
        guard has(offset, 2) else { throw PacketDecodingError.capturedBytesEnd }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    @inline(__always)
    func u32(_ offset: Int) throws(PacketDecodingError) -> UInt32 {
        guard has(offset, 4) else { throw PacketDecodingError.capturedBytesEnd }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16
            | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    /// Little-endian 32-bit read (BSD loopback headers written on little-endian hosts).
    func u32LittleEndian(_ offset: Int) throws(PacketDecodingError) -> UInt32 {
        try u32(offset).byteSwapped
    }

    func u64(_ offset: Int) throws(PacketDecodingError) -> UInt64 {
        UInt64(try u32(offset)) << 32 | UInt64(try u32(offset + 4))
    }

    /// Throws unless `count` bytes at `offset` are available (tcpdump's `ND_TCHECK_LEN`).
    func check(_ offset: Int, _ count: Int) throws(PacketDecodingError) {
        guard has(offset, count) else { throw PacketDecodingError.capturedBytesEnd }
    }
}
