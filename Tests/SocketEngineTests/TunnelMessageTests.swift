import NIOCore
import Testing
@testable import SocketEngine
import TestSupport

/// The proxy messages of `Tunnel/` as bytes: RFC 1928/1929, SOCKS4a and HTTP CONNECT written
/// exactly, read back, and every prefix and every corruption of a reply read without a trap —
/// a short reply asks for more bytes, a wrong one says why.
@Suite(.hangGuard) struct TunnelMessageTests {
    static func bytes(_ write: (inout ByteBuffer) -> Void) -> [UInt8] {
        var buffer = ByteBuffer()
        write(&buffer)
        return Array(buffer.readableBytesView)
    }

    @Test func socks5RequestsCarryEachAddressType() {
        let v4 = Self.bytes { SOCKS5.Request(target: TunnelTarget(host: "192.0.2.1", port: 80)).write(into: &$0) }
        #expect(v4 == [5, 1, 0, 1, 192, 0, 2, 1, 0, 80])
        let v6 = Self.bytes { SOCKS5.Request(target: TunnelTarget(host: "::1", port: 443)).write(into: &$0) }
        #expect(v6 == [5, 1, 0, 4] + [UInt8](repeating: 0, count: 15) + [1, 1, 187])
        let name = Self.bytes { SOCKS5.Request(target: TunnelTarget(host: "example.com", port: 8080)).write(into: &$0) }
        #expect(name == [5, 1, 0, 3, 11] + Array("example.com".utf8) + [0x1F, 0x90])
    }

    @Test func socks5GreetingAndPasswordRequestAreRFCBytes() {
        #expect(Self.bytes { SOCKS5.Greeting(methods: [.noAuthentication, .usernamePassword]).write(into: &$0) } == [5, 2, 0, 2])
        let auth = Self.bytes { SOCKS5.PasswordRequest(username: Array("al".utf8), password: Array("pw!".utf8)).write(into: &$0) }
        #expect(auth == [1, 2, 0x61, 0x6C, 3, 0x70, 0x77, 0x21])
    }

    @Test func everyMessageReadsBackWhatWasWritten() throws {
        let target = TunnelTarget(host: "example.com", port: 443)
        var buffer = ByteBuffer()
        SOCKS5.Request(target: target).write(into: &buffer)
        guard case .complete(let request, let length) = SOCKS5.Request.read(buffer) else { Issue.record("request unread"); return }
        #expect(request.target == target && length == buffer.readableBytes)

        buffer.clear()
        SOCKS5.Reply(code: .succeeded, bound: TunnelTarget(host: "2001:db8::7", port: 9)).write(into: &buffer)
        guard case .complete(let reply, _) = SOCKS5.Reply.read(buffer) else { Issue.record("reply unread"); return }
        #expect(reply.bound.description == "[2001:db8::7]:9")

        buffer.clear()
        SOCKS4a.Request(target: target, userID: Array("bob".utf8)).write(into: &buffer)
        #expect(Array(buffer.readableBytesView) == [4, 1, 1, 187, 0, 0, 0, 1] + Array("bob".utf8) + [0] + Array("example.com".utf8) + [0])
        guard case .complete(let request4, _) = SOCKS4a.Request.read(buffer) else { Issue.record("4a request unread"); return }
        #expect(request4.target == target && request4.userID == Array("bob".utf8))

        buffer.clear()
        SOCKS5.PasswordRequest(username: [1], password: []).write(into: &buffer)
        guard case .complete(let auth, let authLength) = SOCKS5.PasswordRequest.read(buffer) else { Issue.record("auth unread"); return }
        #expect(auth.username == [1] && auth.password == [] && authLength == 4)
    }

    /// A reply cut anywhere asks for more bytes (never a trap, never a value).
    @Test func everyPrefixOfAReplyIsIncomplete() {
        var replies: [[UInt8]] = []
        for bound in [TunnelTarget(host: "10.0.0.1", port: 1), TunnelTarget(host: "::2", port: 2), TunnelTarget(host: "a.example", port: 3)] {
            replies.append(Self.bytes { SOCKS5.Reply(code: .succeeded, bound: bound).write(into: &$0) })
        }
        for reply in replies {
            for cut in 0..<reply.count {
                guard case .incomplete = SOCKS5.Reply.read(ByteBuffer(bytes: reply.prefix(cut))) else {
                    Issue.record("prefix \(cut) of \(reply) is not incomplete")
                    continue
                }
            }
        }
        let four: [UInt8] = [0, 0x5A, 0, 80, 127, 0, 0, 1]
        for cut in 0..<four.count {
            guard case .incomplete = SOCKS4a.Reply.read(ByteBuffer(bytes: four.prefix(cut))) else { Issue.record("4a prefix \(cut)"); continue }
        }
        let head = Array("HTTP/1.1 200 Connection established\r\nProxy-Agent: x\r\n\r\n".utf8)
        for cut in 0..<head.count {
            guard case .incomplete = HTTPConnect.ResponseHead.read(ByteBuffer(bytes: head.prefix(cut))) else { Issue.record("head prefix \(cut)"); continue }
        }
    }

    @Test func malformedRepliesSayWhy() {
        guard case .malformed(let version) = SOCKS5.Reply.read(ByteBuffer(bytes: [4, 0, 0, 1, 0, 0, 0, 0, 0, 0])) else { Issue.record("v4 accepted"); return }
        #expect(version == "version 0x04, not 0x05")
        guard case .malformed(let type) = SOCKS5.Reply.read(ByteBuffer(bytes: [5, 0, 0, 9, 0, 0])) else { Issue.record("atyp 9 accepted"); return }
        #expect(type == "address type 0x09, not 0x01, 0x03 or 0x04")
        guard case .malformed(let status) = HTTPConnect.ResponseHead.read(ByteBuffer(string: "SSH-2.0-OpenSSH\r\n\r\n")) else { Issue.record("ssh accepted"); return }
        #expect(status == "not an HTTP/1.x status line: 'SSH-2.0-OpenSSH'")
        let endless = ByteBuffer(bytes: [UInt8](repeating: UInt8(ascii: "a"), count: HTTPConnect.maximumHead + 10))
        guard case .malformed(let long) = HTTPConnect.ResponseHead.read(endless) else { Issue.record("endless head accepted"); return }
        #expect(long == "a response head over 16384 bytes")
    }

    /// Random bytes into every reader: each answers complete, incomplete or malformed, and a
    /// complete message never claims more bytes than it was given.
    @Test func randomBytesNeverTrapAReader() {
        var random = SplitMix64(seed: 31)
        for _ in 0..<20_000 {
            let count = Int(random.next() % 40)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if !bytes.isEmpty, random.next() % 2 == 0 { bytes[0] = [0, 1, 4, 5][Int(random.next() % 4)] }
            let buffer = ByteBuffer(bytes: bytes)
            func check<M>(_ message: TunnelMessage<M>) {
                if case .complete(_, let length) = message { #expect(length <= bytes.count) }
            }
            check(SOCKS5.Greeting.read(buffer))
            check(SOCKS5.MethodSelection.read(buffer))
            check(SOCKS5.PasswordRequest.read(buffer))
            check(SOCKS5.PasswordStatus.read(buffer))
            check(SOCKS5.Request.read(buffer))
            check(SOCKS5.Reply.read(buffer))
            check(SOCKS4a.Request.read(buffer))
            check(SOCKS4a.Reply.read(buffer))
            check(HTTPConnect.ResponseHead.read(buffer))
        }
    }

    @Test func connectRequestsCarryBasicCredentials() {
        let request = HTTPConnect.Request(target: TunnelTarget(host: "::1", port: 443), credentials: ProxyCredentials(username: "user", password: "pass"))
        let text = String(decoding: Self.bytes { request.write(into: &$0) }, as: UTF8.self)
        #expect(text == "CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443\r\nProxy-Authorization: Basic dXNlcjpwYXNz\r\n\r\n")
    }
}
