import SocketEngine

extension Framing {
    /// How many bytes a framed message has before its body (a length prefix) and after it (a
    /// delimiter): where `--correlate` and `--label` find a request's body in what was written.
    var bodyMargins: (header: Int, trailer: Int) {
        switch self {
        case .lengthPrefixed(let width, _): return (width, 0)
        case .line, .crlf, .null: return (0, delimiter?.count ?? 0)
        // An HTTP message is matched whole (its head and body); the load helper narrows it to the body.
        case .raw, .fixed, .http: return (0, 0)
        }
    }
}
