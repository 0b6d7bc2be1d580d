/// Why a connection or a message failed, by class rather than by message text (a refused
/// connection to port 7000 and to port 7001 are the same problem).
///
/// Local resource errors (`fd-exhausted`, `ports-exhausted`) are kept apart from what the
/// remote side did (`refused`, `reset`, `closed-by-peer`, `timeout`).
package enum ErrorKind: String, Sendable, CaseIterable, Codable, Comparable {
    /// Connect refused (ECONNREFUSED): nothing listens.
    case refused
    /// Connect did not complete within `--connect-timeout`.
    case connectTimeout = "connect-timeout"
    /// The peer reset the connection (ECONNRESET, EPIPE, ECONNABORTED).
    case reset
    /// The peer closed the connection while the run still used it.
    case closedByPeer = "closed-by-peer"
    /// No reply within `--reply-timeout`: the connection is closed and opened again.
    case timeout
    /// A reply did not fit the framing (over `--max-frame`, a bad length).
    case framing
    /// The TLS handshake failed or the server's certificate was refused.
    case tls
    /// The WebSocket upgrade was refused, or the peer broke RFC 6455 or closed with an error code.
    case webSocket = "websocket"
    /// An HTTP response was malformed, cut in the middle, or switched protocols (101) unasked.
    case http
    /// A proxy (`--proxy`) refused the tunnel or broke its protocol (its reason in the example).
    case proxy
    /// The local file-descriptor limit (EMFILE, ENFILE).
    case descriptorsExhausted = "fd-exhausted"
    /// No local port left for this destination (EADDRNOTAVAIL).
    case portsExhausted = "ports-exhausted"
    /// Anything else (the first message of each is kept in the report).
    case other

    package static func < (lhs: ErrorKind, rhs: ErrorKind) -> Bool {
        (allCases.firstIndex(of: lhs) ?? 0) < (allCases.firstIndex(of: rhs) ?? 0)
    }
}
