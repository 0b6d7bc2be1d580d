import NIOCore

/// The messages of an HTTP CONNECT tunnel (RFC 9110 §9.3.6): the request a client sends and
/// the head of the proxy's answer — any 2xx opens the tunnel, anything else is the refusal and
/// its status line is the reason.
///
/// ```
/// CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n[Proxy-Authorization: Basic …\r\n]\r\n
/// HTTP/1.1 200 Connection established\r\n…\r\n\r\n
/// ```
package enum HTTPConnect {
    /// The longest response head read (status line and headers, up to the empty line).
    package static let maximumHead = 16 * 1024

    /// A CONNECT request for a target, with Basic credentials when given.
    package struct Request: Sendable, Hashable {
        package var target: TunnelTarget
        package var credentials: ProxyCredentials?
        package init(target: TunnelTarget, credentials: ProxyCredentials?) {
            self.target = target
            self.credentials = credentials
        }

        package func write(into buffer: inout ByteBuffer) {
            let authority = target.description
            var head = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n"
            if let credentials {
                let pair = Array(credentials.username.utf8) + [UInt8(ascii: ":")] + Array(credentials.password.utf8)
                head += "Proxy-Authorization: Basic \(JSONValue.base64(pair))\r\n"
            }
            head += "\r\n"
            buffer.writeString(head)
        }
    }

    /// The head of the proxy's response: its status line and status code.
    package struct ResponseHead: Sendable, Hashable {
        /// The status line without its CRLF: `HTTP/1.1 407 Proxy Authentication Required`.
        package var statusLine: String
        package var status: Int
        package init(statusLine: String, status: Int) {
            self.statusLine = statusLine
            self.status = status
        }

        /// Whether the tunnel is open (any 2xx).
        package var opensTunnel: Bool { (200..<300).contains(status) }

        /// Reads a head up to and including its empty line (`\r\n\r\n`; bare `\n\n` too), at most
        /// ``HTTPConnect/maximumHead`` bytes; the bytes behind it are the tunnel's.
        package static func read(_ buffer: ByteBuffer) -> TunnelMessage<ResponseHead> {
            let view = buffer.readableBytesView
            var end: Int?
            var previous: [UInt8] = []
            for (offset, byte) in view.prefix(HTTPConnect.maximumHead).enumerated() {
                if byte == UInt8(ascii: "\n") {
                    if previous.last == UInt8(ascii: "\n") || previous.suffix(2) == [UInt8(ascii: "\n"), UInt8(ascii: "\r")] {
                        end = offset + 1
                        break
                    }
                }
                previous.append(byte)
                if previous.count > 2 { previous.removeFirst() }
            }
            guard let end else {
                if view.count >= HTTPConnect.maximumHead { return .malformed("a response head over \(HTTPConnect.maximumHead) bytes") }
                return .incomplete(atLeast: view.count + 1)
            }
            let lineEnd = view.firstIndex(of: UInt8(ascii: "\n")) ?? view.startIndex
            var line = Array(view[view.startIndex..<lineEnd])
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            let text = String(decoding: line, as: UTF8.self)
            let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let status = Int(parts[1]) else {
                return .malformed("not an HTTP/1.x status line: '\(Self.printable(text))'")
            }
            return .complete(ResponseHead(statusLine: text, status: status), length: end)
        }

        /// `text` with control characters shown as `?`, at most 100 characters.
        static func printable(_ text: String) -> String {
            String(text.unicodeScalars.prefix(100).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        }
    }
}
