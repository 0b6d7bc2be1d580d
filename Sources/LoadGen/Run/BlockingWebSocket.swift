import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import SocketEngine

/// The WebSocket opening handshake (RFC 6455 §4) on a ``BlockingSocket``, for `ws://` on
/// `--io threads`: the request the event-loop client sends (the same headers, `--header`,
/// `Origin`, subprotocols), and its checks of the answer — status 101, `Upgrade: websocket`,
/// `Sec-WebSocket-Accept` matching the key sent, no extension, a subprotocol that was offered.
enum BlockingWebSocket {
    /// The largest answer head read (the server's 101 and its headers).
    static let maximumHeadSize = 16 * 1024

    /// Upgrades `socket` before `deadline` (monotonic ns). Bytes the server sent behind its
    /// answer (its first frames) are left in `leftover`.
    static func upgrade(_ socket: some BlockingStream, endpoint: Endpoint, options: WebSocketOptions, deadline: Int64, leftover: inout ByteBuffer) throws {
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        var request = ByteBuffer(string: requestText(for: endpoint, options: options, key: key))
        while request.readableBytes > 0 {
            try socket.sendAvailable(&request)
            if request.readableBytes > 0, try !socket.waitWritable(until: deadline) { throw notUpgraded(endpoint, "timed out sending the request") }
        }
        var answer = ByteBuffer()
        while true {
            if let end = answer.readableBytesView.firstRange(of: Array("\r\n\r\n".utf8)) {
                let headLength = end.upperBound - answer.readableBytesView.startIndex
                let head = answer.readString(length: headLength) ?? ""
                leftover.writeBuffer(&answer)
                try check(head, key: key, endpoint: endpoint, offered: options.subprotocols)
                return
            }
            guard answer.readableBytes <= maximumHeadSize else { throw notUpgraded(endpoint, "the answer's head is over \(maximumHeadSize) bytes") }
            switch try socket.receive(into: &answer, spinUntil: 0, waitUntil: deadline, alsoWritable: false) {
            case .bytes: continue
            case .end: throw notUpgraded(endpoint, "the connection closed before the server answered")
            case .nothing: throw SocketEngineError(.webSocketHandshake, "WebSocket connection to \(endpoint) not upgraded in time")
            }
        }
    }

    /// `Sec-WebSocket-Accept` for `key`: base64 of the SHA-1 of the key and the RFC's GUID.
    static func accept(for key: String) -> String {
        Data(Insecure.SHA1.hash(data: Data((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
    }

    private static func requestText(for endpoint: Endpoint, options: WebSocketOptions, key: String) -> String {
        let head = WebSocketClient.requestHead(for: endpoint, options: options)
        var text = "GET \(head.uri) HTTP/1.1\r\n"
        for (name, value) in head.headers { text += "\(name): \(value)\r\n" }
        text += "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
        return text
    }

    private static func check(_ head: String, key: String, endpoint: Endpoint, offered: [String]) throws {
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: true).makeIterator()
        let status = lines.next().map(String.init) ?? ""
        let parts = status.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1.") else {
            throw notUpgraded(endpoint, "the answer is not HTTP: is it a TLS server (wss://) or not a web server?")
        }
        guard parts[1] == "101" else { throw notUpgraded(endpoint, "the server answered \(parts[1...].joined(separator: " "))") }
        var headers = HTTPHeaders()
        while let line = lines.next() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimming([" ", "\t"]))
        }
        guard headers["Upgrade"].contains(where: { $0.lowercased() == "websocket" }) else {
            throw notUpgraded(endpoint, "101 response without 'Upgrade: websocket'")
        }
        guard headers["Sec-WebSocket-Accept"].first == accept(for: key) else {
            throw notUpgraded(endpoint, "Sec-WebSocket-Accept is missing or does not match the key sent")
        }
        guard headers["Sec-WebSocket-Extensions"].isEmpty else { throw notUpgraded(endpoint, "the server chose an extension, but none was offered") }
        _ = try WebSocketClient.checkedSubprotocol(HTTPResponseHead(version: .http1_1, status: .switchingProtocols, headers: headers), offered: offered)
    }

    private static func notUpgraded(_ endpoint: Endpoint, _ reason: String) -> SocketEngineError {
        SocketEngineError(.webSocketHandshake, "WebSocket handshake with \(endpoint) failed: \(reason)")
    }
}
