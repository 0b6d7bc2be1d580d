/// The decoders beyond tcpdump that `capture --decode` turns on: TLS records and handshakes,
/// WebSocket upgrades and frames, HTTP/2 prefaces and frames (gRPC runs on HTTP/2), HTTP/1.1
/// messages. They print lines of their own after tcpdump's header line, so without them the
/// output stays tcpdump's; `--json` always uses all of them, `--follow` all but HTTP/1.1 (it
/// shows an HTTP/1.1 stream's bytes, or its messages with `--framing http`).
public struct ProtocolViews: OptionSet, Sendable, Hashable {
    /// The bits, one per view.
    public let rawValue: UInt8
    /// Views from their bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// TLS record type and version, ClientHello SNI, ALPN and offered versions, ServerHello
    /// version and cipher suite, alerts.
    public static let tls = ProtocolViews(rawValue: 1)
    /// The WebSocket upgrade, then each frame's opcode, FIN, mask, length and close code.
    public static let webSocket = ProtocolViews(rawValue: 2)
    /// The HTTP/2 connection preface and each frame's type, flags, stream and the settings,
    /// error codes and window increments it carries.
    public static let http2 = ProtocolViews(rawValue: 4)
    /// Each HTTP/1.1 message (cut by the engine's `HTTPMessageScanner`): its request or status
    /// line, its header fields, its body's length and framing.
    public static let http = ProtocolViews(rawValue: 8)
    /// The PROXY protocol header (v1 or v2) a connection through a proxy begins with: the
    /// client's address it carries; the protocol behind it is then recognised as usual.
    public static let proxy = ProtocolViews(rawValue: 16)
    /// Every view.
    public static let all: ProtocolViews = [.tls, .webSocket, .http2, .http, .proxy]

    /// The names `--decode` takes: `tls`, `ws` (or `websocket`), `http2` (or `h2`, `grpc`),
    /// `http` (or `http1`, `http/1.1`), `proxy`, `all`.
    public static let names = "tls, ws, http2, http, proxy, all"

    /// Views from a comma-separated list of ``names``; nil when a name is unknown.
    public init?(list: String) {
        var views: ProtocolViews = []
        for name in list.split(separator: ",", omittingEmptySubsequences: false) {
            switch name.trimmingSpaces.lowercased() {
            case "tls", "ssl": views.insert(.tls)
            case "ws", "websocket", "wss": views.insert(.webSocket)
            case "http2", "h2", "h2c", "grpc": views.insert(.http2)
            case "proxy", "proxy-protocol": views.insert(.proxy)
            case "http", "http1", "http/1.1": views.insert(.http)
            case "all": views.formUnion(.all)
            default: return nil
            }
        }
        self = views
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}
