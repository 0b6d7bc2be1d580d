import CZlib

/// The receiving half of permessage-deflate (RFC 7692 §7.2.2) over zlib: each message's
/// payload — the fragments in order — inflated as raw DEFLATE with the `00 00 FF FF` that the
/// sender removed put back after the last fragment, the window carried over to the next
/// message unless the sender does not take its context over.
///
/// ```
/// fragments  | f2 48 cd c9 c9 07 00 |            (+ 00 00 ff ff after the last)
/// output     | "Hello"                            at most `limit` bytes per message
/// ```
///
/// The output of one message is bounded: past `limit` bytes inflating stops and the message is
/// ``Failure/tooBig`` (a small payload that inflates to gigabytes costs no more than `limit`).
/// A payload zlib cannot read is ``Failure/corrupt(_:)``. After either, the inflater is no
/// longer usable (the connection is failed). The window is always 15 bits: it reads data from
/// any window size. Owned by one connection direction at a time, never shared.
public final class MessageInflater: @unchecked Sendable {
    /// Why a payload was not inflated.
    public enum Failure: Error, Sendable, Equatable {
        /// The message inflates to more than the limit.
        case tooBig
        /// zlib could not read it (its message).
        case corrupt(String)
    }

    /// The largest inflated message, in bytes.
    public let limit: Int
    /// True when the window starts empty for each message.
    public let resetsEachMessage: Bool
    private let stream: UnsafeMutablePointer<z_stream>
    private var started = false
    private var broken = false
    private static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    /// An inflater for messages of at most `limit` bytes; `resetsEachMessage` when the sender
    /// declared no context takeover.
    public init(limit: Int, resetsEachMessage: Bool) {
        self.limit = max(0, limit)
        self.resetsEachMessage = resetsEachMessage
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        if started { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// The inflated length of the message in progress so far.
    public private(set) var produced = 0
    /// The inflated length of the last message that ended.
    public private(set) var lastLength = 0

    /// Inflates one fragment of the current message and appends its output to `output` (only
    /// until `output` holds `keep` bytes: the rest is inflated, counted and dropped); `last`
    /// when it ends the message (the tail is put back and the message's count restarts).
    public func inflate(_ input: UnsafeRawBufferPointer, last: Bool, keep: Int = .max, into output: inout [UInt8]) throws(Failure) {
        guard !broken else { throw .corrupt("the stream failed before") }
        if !started {
            guard inflateInit2_(stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                broken = true
                throw .corrupt("zlib could not start inflating")
            }
            started = true
        }
        do throws(Failure) {
            try run(input, keep: keep, into: &output)
            if last {
                var tail = Self.tail
                try run(&tail, keep: keep, into: &output)
                lastLength = produced
                produced = 0
                if resetsEachMessage { inflateReset(stream) }
            }
        } catch {
            broken = true
            throw error
        }
    }

    /// The tail, from an array (a closure cannot throw a typed error through `withUnsafeBytes`).
    private func run(_ tail: inout [UInt8], keep: Int, into output: inout [UInt8]) throws(Failure) {
        let result: Result<Void, Failure> = tail.withUnsafeBytes { bytes in
            Result { () throws(Failure) in try run(bytes, keep: keep, into: &output) }
        }
        try result.get()
    }

    private func run(_ input: UnsafeRawBufferPointer, keep: Int, into output: inout [UInt8]) throws(Failure) {
        guard let base = input.baseAddress, input.count > 0 else { return }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
        }
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let room = limit - produced >= chunk.count ? chunk.count : limit - produced + 1
            let (status, made) = chunk.withUnsafeMutableBufferPointer { target -> (Int32, Int) in
                stream.pointee.next_out = target.baseAddress
                stream.pointee.avail_out = uInt(room)
                let status = CZlib.inflate(stream, Z_SYNC_FLUSH)
                let made = room - Int(stream.pointee.avail_out)
                stream.pointee.next_out = nil
                stream.pointee.avail_out = 0
                return (status, made)
            }
            produced += made
            guard produced <= limit else { throw .tooBig }
            let space = max(0, keep - output.count)
            output.append(contentsOf: chunk[0..<min(made, space)])
            switch status {
            case Z_OK:
                // More may be pending when the output was full; done when the input is spent.
                if stream.pointee.avail_in == 0 && made < room { return }
            case Z_STREAM_END:
                // A final block (BFINAL) ends the DEFLATE stream: what follows starts a new one.
                inflateReset(stream)
                if stream.pointee.avail_in == 0 { return }
            case Z_BUF_ERROR:
                // No progress possible: the input is spent.
                if stream.pointee.avail_in == 0 { return }
                throw .corrupt("inflating made no progress")
            default:
                let message = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                throw .corrupt(message)
            }
        }
    }
}
