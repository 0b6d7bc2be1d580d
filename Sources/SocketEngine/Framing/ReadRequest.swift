/// What one queued read on a ``Connection`` waits for, in the manner of GCDAsyncSocket's
/// `readDataToLength:`, `readDataToData:maxLength:` and `readDataWithTimeout:` — but as an
/// async call that returns the bytes instead of a delegate callback matched by tag.
///
/// Reads are served strictly in the order they were issued. Bytes that no read has asked for
/// yet stay buffered (up to the connection's buffer limit, after which the socket stops being
/// read: backpressure, not unbounded memory).
public enum ReadRequest: Sendable {
    /// Exactly `count` bytes.
    case exactly(Int)
    /// Everything up to and including `delimiter`; more than `maxLength` bytes before the
    /// delimiter is a `.frameTooLarge` error.
    case delimited(by: [UInt8], maxLength: Int)
    /// Whatever is buffered (at least one byte), at most `maxLength`. On a datagram connection,
    /// exactly one datagram.
    case available(maxLength: Int)
    /// One message of the given framing, at most `maxFrameSize` bytes of body.
    case frame(Framing, maxFrameSize: Int)
    /// One HTTP/1.1 response (``Framing/http``) to a request that was a HEAD (`toHEAD`: its
    /// response has no body whatever its headers say) or not, at most `maxFrameSize` bytes.
    case httpResponse(toHEAD: Bool, maxFrameSize: Int)

    /// Whatever is buffered, at most 1 MiB.
    public static var available: ReadRequest { .available(maxLength: 1 << 20) }

    var decoder: FrameDecoder {
        switch self {
        case .exactly(let count):
            return FrameDecoder(rule: .exactly(max(0, count)), maximumFrameSize: max(1, count))
        case .delimited(let delimiter, let maxLength):
            if delimiter.isEmpty { return FrameDecoder(rule: .available, maximumFrameSize: maxLength) }
            return FrameDecoder(
                rule: .delimiter(delimiter, includeDelimiter: true, dropCR: false),
                maximumFrameSize: maxLength
            )
        case .available(let maxLength):
            return FrameDecoder(rule: .available, maximumFrameSize: maxLength)
        case .frame(let framing, let maxFrameSize):
            return FrameDecoder(framing: framing, maximumFrameSize: maxFrameSize)
        case .httpResponse(let toHEAD, let maxFrameSize):
            var decoder = FrameDecoder(framing: .http, maximumFrameSize: maxFrameSize)
            decoder.expectResponse(toHEAD: toHEAD)
            return decoder
        }
    }
}
