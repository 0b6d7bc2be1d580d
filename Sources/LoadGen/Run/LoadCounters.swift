import NIOCore
import SocketEngine

extension ErrorKind {
    /// The kind of a NIO or kernel error.
    package static func of(_ error: any Error) -> ErrorKind {
        let engine = SocketEngineError.wrapping(error, context: "")
        switch engine.code {
        case .connectionRefused: return .refused
        case .connectTimeout: return .connectTimeout
        case .connectionReset: return .reset
        case .connectionClosed: return .closedByPeer
        case .descriptorsExhausted: return .descriptorsExhausted
        case .portsExhausted: return .portsExhausted
        case .frameTooLarge, .truncatedFrame: return .framing
        case .readTimeout: return .timeout
        case .tlsFailed: return .tls
        case .webSocketHandshake, .webSocketProtocol, .webSocketClosed: return .webSocket
        case .httpProtocol: return .http
        case .proxyRefused, .proxyProtocol: return .proxy
        default: return .other
        }
    }
}

/// Everything a load test counts. Plain numbers that add up across event loops, hosts and
/// intervals (``add(_:)``).
///
/// The accounting identity, checked by the tests: every message sent was either answered
/// (`received`), timed out (`timedOut`), or lost (`lost`: its connection failed, or the run
/// ended while it was unanswered). Messages that were due but never sent are `unsent`.
package struct LoadCounters: Sendable, Equatable, Codable {
    package var messagesSent = 0
    package var messagesReceived = 0
    package var timedOut = 0
    package var lost = 0
    /// Due (by `--rate`) but never sent: no connection, or the end came first.
    package var unsent = 0
    /// Sent during `--warmup`: not in any other number.
    package var warmupSent = 0
    /// `--correlate`: replies after the warm-up with no key, or whose key no unanswered message
    /// of their connection had (pushed by the server, or answering one already answered).
    package var unmatched = 0
    /// `--correlate`: messages sent while an unanswered one on their connection had the same
    /// key; the older one is counted as lost.
    package var duplicateKeys = 0
    package var bytesSent = 0
    package var bytesReceived = 0
    package var connectAttempts = 0
    package var connectsSucceeded = 0
    package var connectsFailed = 0
    /// Established connections that ended before the run did (closed, reset, timed out).
    package var connectionsLost = 0
    package var errors: [ErrorKind: Int] = [:]
    /// HTTP targets: the responses by status code, made at the first one (nil otherwise).
    package var http: HTTPStatusCounts?

    package init() {}

    package var errorCount: Int { errors.values.reduce(0, +) }

    package mutating func add(_ other: LoadCounters) {
        messagesSent += other.messagesSent
        messagesReceived += other.messagesReceived
        timedOut += other.timedOut
        lost += other.lost
        unsent += other.unsent
        warmupSent += other.warmupSent
        unmatched += other.unmatched
        duplicateKeys += other.duplicateKeys
        bytesSent += other.bytesSent
        bytesReceived += other.bytesReceived
        connectAttempts += other.connectAttempts
        connectsSucceeded += other.connectsSucceeded
        connectsFailed += other.connectsFailed
        connectionsLost += other.connectionsLost
        for (kind, count) in other.errors { errors[kind, default: 0] += count }
        if let theirs = other.http {
            if http == nil { http = HTTPStatusCounts() }
            http?.add(theirs)
        }
    }

    /// An interim HTTP response (1xx), in the measured part.
    mutating func countInterim() {
        if http == nil { http = HTTPStatusCounts() }
        http?.interim += 1
    }

    /// The server closed an HTTP connection after a response (it is opened again).
    mutating func countServerClose() {
        if http == nil { http = HTTPStatusCounts() }
        http?.serverCloses += 1
    }

    /// One final HTTP response with status `code`, answering a measured message.
    @inline(__always)
    mutating func countHTTP(status code: Int) {
        if http == nil { http = HTTPStatusCounts() }
        http?.count(status: code)
    }

    mutating func count(_ kind: ErrorKind) {
        errors[kind, default: 0] += 1
    }
}
