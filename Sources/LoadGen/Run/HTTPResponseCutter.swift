import HTTPScanning
import NIOCore
import SocketEngine

/// How a load connection to an `http://` or `https://` target reads its responses, the same on
/// an event loop (``LoadConnectionHandler``) and on a thread (``LoadThread``): the
/// ``HTTPMessageScanner`` is shown the bytes in hand and says how many it is done with, so a
/// body is consumed and dropped as it arrives (a 100 MB body costs no memory) and only an
/// unfinished head stays in the caller's buffer. Nothing is copied or allocated per response.
///
/// Each final response answers the slot's oldest unanswered request (``LoadSlot/reply(http:now:stats:)``);
/// an interim one (1xx) answers nothing. After a response whose connection does not stay open
/// (`Connection: close`, HTTP/1.0, a body until close) the caller closes and reopens.
/// A malformed response, one cut in the middle, a status outside 100…599 or an unasked 101
/// is an `http-protocol` error (the report's `http` kind).
struct HTTPResponseCutter: Sendable {
    private var scanner = HTTPMessageScanner(side: .responses)
    /// Every request is a HEAD: the scanner holds the flag of the oldest unanswered one.
    private let sendsHEAD: Bool

    init(sendsHEAD: Bool) {
        self.sendsHEAD = sendsHEAD
    }

    /// A request was sent and `pending` are now unanswered.
    @inline(__always)
    mutating func sent(pending: Int) {
        if sendsHEAD && pending == 1 { scanner.expectResponse(toHEAD: true) }
    }

    /// Cuts the responses at the front of `buffer` (its reader index moves past every byte
    /// the scanner is done with), answering `state`'s requests; true when the server closes
    /// the connection after the last one (the bytes after it, if any, are dropped).
    /// `atEOF`: the server has closed; a body that runs until close ends here.
    @inline(__always)
    mutating func cut(_ buffer: inout ByteBuffer, atEOF: Bool, state: inout LoadSlot, now: Int64, stats: inout LoadStats) throws(SocketEngineError) -> Bool {
        while true {
            let step = try scan(buffer, atEOF: atEOF)
            buffer.moveReaderIndex(forwardBy: step.consumed)
            guard let info = step.completed else { return false }
            if info.switchesProtocols {
                throw SocketEngineError(.httpProtocol, "the server switched protocols (101) though no upgrade was asked for")
            }
            guard HTTPStatusCounts.codes.contains(info.status) else {
                throw SocketEngineError(.httpProtocol, "status \(info.status) is not an HTTP status (100 to 599)")
            }
            state.reply(http: info, now: now, stats: &stats)
            if info.isInterim { continue }
            if sendsHEAD && state.pending.count > 0 { scanner.expectResponse(toHEAD: true) }
            if !info.keepAlive {
                buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
                return true
            }
        }
    }

    private mutating func scan(_ buffer: ByteBuffer, atEOF: Bool) throws(SocketEngineError) -> (consumed: Int, completed: HTTPMessageInfo?) {
        let result: Result<(consumed: Int, completed: HTTPMessageInfo?), HTTPScanError> = buffer.withUnsafeReadableBytes { raw in
            do throws(HTTPScanError) {
                return .success(try scanner.scan(raw, atEOF: atEOF))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let step): return step
        case .failure(let error): throw SocketEngineError(.httpProtocol, "bad HTTP response: \(error.description)")
        }
    }
}
