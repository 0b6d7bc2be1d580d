import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Who may open a WebSocket on a listener, decided from the upgrade request alone.
///
/// | request                                   | answer |
/// |-------------------------------------------|--------|
/// | another path than the endpoint's          | 404    |
/// | not a WebSocket upgrade (plain HTTP)      | 426, `Upgrade: websocket` |
/// | `Sec-WebSocket-Version` other than 13     | 426, `Sec-WebSocket-Version: 13` |
/// | `Origin` not in `--allow-origin` (or none sent while a list is given) | 403 |
/// | otherwise                                 | 101, with the first offered subprotocol the server accepts |
///
/// The query string does not take part in matching the path.
package struct WebSocketServerPolicy: Sendable {
    package enum Decision: Sendable, Equatable {
        case accept(subprotocol: String?)
        case refuse(status: HTTPResponseStatus, reason: String)
    }

    /// The path clients must ask for (`/` by default).
    package var path: String
    package var allowedOrigins: [String]
    package var subprotocols: [String]

    package init(path: String, allowedOrigins: [String] = [], subprotocols: [String] = []) {
        self.path = Self.pathPart(path)
        self.allowedOrigins = allowedOrigins.map { $0.lowercased() }
        self.subprotocols = subprotocols
    }

    package func decide(_ head: HTTPRequestHead) -> Decision {
        let path = Self.pathPart(head.uri)
        guard path == self.path else {
            return .refuse(status: .notFound, reason: "no WebSocket at \(Self.printable(path))")
        }
        let upgrade = head.headers[canonicalForm: "upgrade"].map { $0.lowercased() }
        let connection = head.headers[canonicalForm: "connection"].map { $0.lowercased() }
        guard head.method == .GET, upgrade.contains("websocket"), connection.contains("upgrade"),
              head.headers["Sec-WebSocket-Key"].count == 1
        else {
            return .refuse(status: .upgradeRequired, reason: "not a WebSocket upgrade request")
        }
        guard head.headers["Sec-WebSocket-Version"] == ["13"] else {
            return .refuse(status: .upgradeRequired, reason: "unsupported Sec-WebSocket-Version (13 is required)")
        }
        let origin = head.headers.first(name: "Origin")
        if !allowedOrigins.isEmpty {
            guard let origin, allowedOrigins.contains(origin.lowercased()) else {
                return .refuse(status: .forbidden, reason: "origin \(Self.printable(origin ?? "(none)")) is not allowed")
            }
        }
        let offered = head.headers[canonicalForm: "sec-websocket-protocol"].map { String($0) }
        return .accept(subprotocol: offered.first { subprotocols.contains($0) })
    }

    static func pathPart(_ uri: String) -> String {
        let path = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return path.isEmpty ? "/" : path
    }

    /// Request text in a log line: at most 200 characters, control characters escaped.
    static func printable(_ text: String) -> String {
        let cut = text.unicodeScalars.prefix(200).map { scalar -> String in
            scalar.value < 0x20 || scalar.value == 0x7F ? "\\x" + String(scalar.value, radix: 16) : String(scalar)
        }.joined()
        return "'\(cut)'" + (text.unicodeScalars.count > 200 ? "…" : "")
    }
}
