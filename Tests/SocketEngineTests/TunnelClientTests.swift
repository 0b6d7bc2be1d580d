import NIOCore
import Testing
@testable import SocketEngine
import TestSupport

/// ``TunnelClient`` fed scripted proxy answers: each protocol's exchange in order, the bytes
/// behind the last answer kept for the tunnel, and each refusal worded once with the proxy's
/// own reason (the SOCKS reply code and its RFC 1928 name, the HTTP status line).
@Suite(.hangGuard) struct TunnelClientTests {
    static let target = TunnelTarget(host: "example.com", port: 80)

    static func client(_ url: String) throws -> TunnelClient {
        try TunnelClient(proxy: ProxyEndpoint(parsing: url), target: target, label: "127.0.0.1:1080")
    }

    static func sent(_ step: TunnelClient.Step) -> [UInt8]? {
        guard case .send(let buffer) = step else { return nil }
        return Array(buffer.readableBytesView)
    }

    @Test func socks5WithAPasswordGoesGreetingAuthRequestReply() throws {
        var client = try Self.client("socks5h://u:p@127.0.0.1:1080")
        #expect(Array(client.start().readableBytesView) == [5, 2, 0, 2])
        var input = ByteBuffer(bytes: [5, 2])
        #expect(Self.sent(try client.receive(&input)) == [1, 1, 0x75, 1, 0x70])
        input = ByteBuffer(bytes: [1, 0])
        #expect(Self.sent(try client.receive(&input)) == [5, 1, 0, 3, 11] + Array("example.com".utf8) + [0, 80])
        // The reply cut in two, the destination's first bytes right behind it.
        input = ByteBuffer(bytes: [5, 0, 0, 1, 127])
        #expect(try client.receive(&input) == .wait)
        input.writeBytes([0, 0, 1, 0x04, 0x38] + Array("banner".utf8))
        #expect(try client.receive(&input) == .open)
        #expect(String(buffer: input) == "banner")
        #expect(client.isOpen)
    }

    @Test(arguments: [
        (UInt8(0x01), "general SOCKS server failure"), (0x02, "connection not allowed by ruleset"), (0x03, "network unreachable"),
        (0x04, "host unreachable"), (0x05, "connection refused"), (0x06, "TTL expired"), (0x07, "command not supported"),
        (0x08, "address type not supported"), (0x09, "unassigned"),
    ])
    func aSocks5RefusalNamesItsReplyCode(code: UInt8, name: String) throws {
        var client = try Self.client("socks5h://127.0.0.1:1080")
        _ = client.start()
        var input = ByteBuffer(bytes: [5, 0])
        _ = try client.receive(&input)
        input = ByteBuffer(bytes: [5, code, 0, 1, 0, 0, 0, 0, 0, 0])
        #expect(throws: SocketEngineError(.proxyRefused, SettingText("SOCKS5 proxy 127.0.0.1:1080 refused the connection to example.com:80: reply \(hexByte(code)) (\(name))"))) {
            try client.receive(&input)
        }
    }

    @Test func socks5RefusalsOfMethodsAndPasswords() throws {
        var client = try Self.client("socks5://127.0.0.1:1080")
        _ = client.start()
        var input = ByteBuffer(bytes: [5, 0xFF])
        #expect(throws: SocketEngineError(.proxyRefused, "SOCKS5 proxy 127.0.0.1:1080 accepts none of the authentication methods offered (no authentication) (it may want a user and password)")) {
            try client.receive(&input)
        }
        var unasked = try Self.client("socks5://127.0.0.1:1080")
        _ = unasked.start()
        input = ByteBuffer(bytes: [5, 2])
        #expect(throws: SocketEngineError(.proxyProtocol, "SOCKS5 proxy 127.0.0.1:1080 sent a malformed SOCKS5 method selection: chose username/password, which was not offered")) {
            try unasked.receive(&input)
        }
        var wrong = try Self.client("socks5://bob:x@127.0.0.1:1080")
        _ = wrong.start()
        input = ByteBuffer(bytes: [5, 2])
        _ = try wrong.receive(&input)
        input = ByteBuffer(bytes: [1, 1])
        #expect(throws: SocketEngineError(.proxyRefused, "SOCKS5 proxy 127.0.0.1:1080 refused the user 'bob' and its password (RFC 1929 status 0x01)")) {
            try wrong.receive(&input)
        }
    }

    @Test func aProxyThatClosesEarlySaysWhereItStopped() throws {
        var client = try Self.client("socks5h://127.0.0.1:1080")
        _ = client.start()
        #expect(client.closedEarly(buffered: 0) == SocketEngineError(.proxyProtocol, "SOCKS5 proxy 127.0.0.1:1080 closed the connection before its SOCKS5 method selection"))
        var input = ByteBuffer(bytes: [5, 0])
        _ = try client.receive(&input)
        input = ByteBuffer(bytes: [5, 0, 0, 1, 127])
        #expect(try client.receive(&input) == .wait)
        #expect(client.closedEarly(buffered: input.readableBytes) == SocketEngineError(
            .proxyProtocol, "SOCKS5 proxy 127.0.0.1:1080 closed the connection in the middle of its SOCKS5 reply (5 of at least 10 bytes)"))
    }

    @Test func socks4aIsOneRequestAndOneReply() throws {
        var client = try Self.client("socks4a://alice@127.0.0.1:1080")
        #expect(Array(client.start().readableBytesView) == [4, 1, 0, 80, 0, 0, 0, 1] + Array("alice".utf8) + [0] + Array("example.com".utf8) + [0])
        var input = ByteBuffer(bytes: [0, 0x5B, 0, 0, 0, 0, 0, 0])
        #expect(throws: SocketEngineError(.proxyRefused, "SOCKS4a proxy 127.0.0.1:1080 refused the connection to example.com:80: reply 0x5b (request rejected or failed)")) {
            try client.receive(&input)
        }
    }

    @Test func httpConnectOpensOnAny2xxAndRefusesWithTheStatusLine() throws {
        var client = try Self.client("http://127.0.0.1:3128")
        #expect(String(buffer: client.start()) == "CONNECT example.com:80 HTTP/1.1\r\nHost: example.com:80\r\n\r\n")
        var input = ByteBuffer(string: "HTTP/1.0 200 Connection established\r\nProxy-agent: x\r\n\r\nSSH-2.0")
        #expect(try client.receive(&input) == .open)
        #expect(String(buffer: input) == "SSH-2.0")

        var refused = try Self.client("http://127.0.0.1:3128")
        _ = refused.start()
        input = ByteBuffer(string: "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\nContent-Length: 0\r\n\r\n")
        #expect(throws: SocketEngineError(.proxyRefused, "HTTP CONNECT proxy 127.0.0.1:1080 refused the connection to example.com:80: 'HTTP/1.1 407 Proxy Authentication Required'")) {
            try refused.receive(&input)
        }
    }

    @Test func aNameSOCKS5CannotCarryIsRefusedBeforeSending() {
        let long = TunnelTarget(host: String(repeating: "a", count: 256), port: 1)
        #expect(throws: SocketEngineError.self) {
            try TunnelClient(proxy: ProxyEndpoint(parsing: "socks5h://h:1"), target: long, label: "h:1")
        }
    }
}
