import Foundation
import NIOCore

/// The server's side of HTTP CONNECT: the request a proxy reads (its head, up to the empty
/// line) and the one-line answers it gives.
extension HTTPConnect {
    /// A CONNECT request as a proxy reads it.
    package struct ReceivedRequest: Sendable, Hashable {
        /// The request's method (anything but `CONNECT` is answered 405).
        package var method: String
        /// Where the tunnel is to lead; nil for a method other than CONNECT.
        package var target: TunnelTarget?
        /// `Proxy-Authorization: Basic …`, decoded; nil when absent or not Basic.
        package var credentials: ProxyCredentials?

        /// Reads the head of a request from the first byte through the empty line (`\r\n\r\n`),
        /// at most ``HTTPConnect/maximumHead`` bytes: `CONNECT host:port HTTP/1.x` with the
        /// port required, an IPv6 address in brackets.
        package static func read(_ buffer: ByteBuffer) -> TunnelMessage<ReceivedRequest> {
            let view = buffer.readableBytesView.prefix(HTTPConnect.maximumHead)
            let terminator: [UInt8] = Array("\r\n\r\n".utf8)
            guard let end = view.firstRange(of: terminator)?.upperBound else {
                if view.count >= HTTPConnect.maximumHead { return .malformed("a request head over \(HTTPConnect.maximumHead) bytes") }
                return .incomplete(atLeast: view.count + 1)
            }
            let head = String(decoding: view[view.startIndex..<end], as: UTF8.self)
            let lines = head.split(separator: "\r\n", omittingEmptySubsequences: true)
            guard let requestLine = lines.first else { return .malformed("an empty request line") }
            let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[2].hasPrefix("HTTP/1."), !parts[0].isEmpty else {
                return .malformed("not an HTTP/1.x request line: '\(ResponseHead.printable(String(requestLine)))'")
            }
            let length = end - view.startIndex
            let method = String(parts[0])
            guard method == "CONNECT" else { return .complete(ReceivedRequest(method: method), length: length) }
            guard let target = authority(parts[1]) else {
                return .malformed("'\(ResponseHead.printable(String(parts[1])))' is not HOST:PORT")
            }
            var request = ReceivedRequest(method: method, target: target)
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == "proxy-authorization" else { continue }
                request.credentials = basic(line[line.index(after: colon)...])
            }
            return .complete(request, length: length)
        }

        private init(method: String, target: TunnelTarget? = nil) {
            self.method = method
            self.target = target
        }

        /// `host:port` or `[v6]:port`, the port 1-65535, the host without spaces or controls.
        static func authority(_ text: Substring) -> TunnelTarget? {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            var host = text[..<colon]
            let portText = text[text.index(after: colon)...]
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCIIDigit),
                  let port = Int(portText), (1...65535).contains(port) else { return nil }
            if host.hasPrefix("[") {
                guard host.hasSuffix("]"), case .ipv6? = TunnelTarget.literal(String(host)) else { return nil }
                host = host.dropFirst().dropLast()
            }
            guard !host.isEmpty, host.utf8.count <= 255, !host.contains(":") || TunnelTarget.literal(String(host)) != nil,
                  host.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else { return nil }
            return TunnelTarget(host: String(host), port: port)
        }

        /// ` Basic dXNlcjpwYXNz` as a user and password.
        static func basic(_ value: Substring) -> ProxyCredentials? {
            let words = value.split(separator: " ")
            guard words.count == 2, words[0].lowercased() == "basic", let data = Data(base64Encoded: String(words[1])) else { return nil }
            let pair = String(decoding: data, as: UTF8.self)
            guard let colon = pair.firstIndex(of: ":") else { return nil }
            return ProxyCredentials(username: String(pair[..<colon]), password: String(pair[pair.index(after: colon)...]))
        }
    }

    /// A proxy's answer with no body: `HTTP/1.1 200 Connection established` opens the tunnel;
    /// a refusal also says `Connection: close`.
    package static func response(_ status: Int, _ reason: String, into buffer: inout ByteBuffer) {
        var head = "HTTP/1.1 \(status) \(reason)\r\n"
        if status == 407 { head += "Proxy-Authenticate: Basic realm=\"sockctl\"\r\n" }
        if !(200..<300).contains(status) { head += "Content-Length: 0\r\nConnection: close\r\n" }
        buffer.writeString(head + "\r\n")
    }
}
