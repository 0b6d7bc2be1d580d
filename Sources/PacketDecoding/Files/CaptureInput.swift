import Glibc

/// The reader's input: one growable buffer, refilled with `read(2)` in large chunks.
///
/// Bytes from `start` to `end` are unconsumed; positions handed out are offsets from the buffer's
/// base and stay valid until the next ``fill(_:_:)`` (which may move or reallocate the buffer).
/// The buffer only grows to the largest single header, record or block asked for, which the
/// reader caps.
final class CaptureInput {
    static let chunkLength = 256 * 1024

    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    /// Offset of the first unconsumed byte.
    var start = 0
    private var end = 0
    private let descriptor: Int32
    private let closeOnDeinit: Bool
    private var atEnd: Bool

    init(fileDescriptor: Int32, closeOnDeinit: Bool) {
        capacity = Self.chunkLength
        base = .allocate(byteCount: capacity, alignment: 16)
        descriptor = fileDescriptor
        self.closeOnDeinit = closeOnDeinit
        atEnd = false
    }

    init(bytes: [UInt8]) {
        let storage = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { source in
            if let address = source.baseAddress { storage.copyMemory(from: address, byteCount: source.count) }
        }
        base = storage
        capacity = max(bytes.count, 1)
        end = bytes.count
        descriptor = -1
        closeOnDeinit = false
        atEnd = true
    }

    deinit {
        base.deallocate()
        if closeOnDeinit, descriptor >= 0 { _ = close(descriptor) }
    }

    /// Makes `count` bytes available from `start` unless the input ends first, and returns how
    /// many are available (fewer than `count` only at end of input).
    @inline(__always) func fill(_ count: Int, _ phase: PacketDecodingError.Phase) throws(PacketDecodingError) -> Int {
        let available = end - start
        if available >= count || atEnd { return available }
        return try refill(count, phase)
    }

    private func refill(_ count: Int, _ phase: PacketDecodingError.Phase) throws(PacketDecodingError) -> Int {
        if capacity - start < count {
            let available = end - start
            if count > capacity {
                let newCapacity = max(count, capacity * 2)
                let bigger = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
                bigger.copyMemory(from: base + start, byteCount: available)
                base.deallocate()
                base = bigger
                capacity = newCapacity
            } else if available > 0 {
                memmove(base, base + start, available)
            }
            start = 0
            end = available
        }
        while end - start < count {
            let got = read(descriptor, base + end, capacity - end)
            if got > 0 {
                end += got
            } else if got == 0 {
                atEnd = true
                break
            } else {
                let code = errno
                if code == EINTR { continue }
                throw PacketDecodingError(.io, phase: phase, "error reading dump file: \(PacketDecodingError.systemMessage(code))", errno: code)
            }
        }
        return end - start
    }

    @inline(__always) func loadU8(at position: Int) -> UInt8 {
        base.load(fromByteOffset: position, as: UInt8.self)
    }

    @inline(__always) func loadU16(at position: Int) -> UInt16 {
        base.loadUnaligned(fromByteOffset: position, as: UInt16.self)
    }

    @inline(__always) func loadU32(at position: Int) -> UInt32 {
        base.loadUnaligned(fromByteOffset: position, as: UInt32.self)
    }

    @inline(__always) func loadU64(at position: Int) -> UInt64 {
        base.loadUnaligned(fromByteOffset: position, as: UInt64.self)
    }

    @inline(__always) func bytes(at position: Int, count: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + position, count: count)
    }
}
