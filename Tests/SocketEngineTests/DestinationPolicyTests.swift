import NIOCore
import Testing
@testable import SocketEngine
import TestSupport

/// `proxy --allow-destination` / `--deny-destination`: the pattern grammar and the two-step
/// decision (the request's name first, then the addresses it resolved to).
@Suite(.hangGuard) struct DestinationPolicyTests {
    func address(_ text: String, _ port: Int = 80) throws -> SocketAddress { try SocketAddress(ipAddress: text, port: port) }
    func pattern(_ text: String) throws -> DestinationPattern { try DestinationPattern(parsing: text) }

    @Test func patternsMatchNetworksNamesAndPorts() throws {
        #expect(try pattern("10.0.0.0/8").matches(address: address("10.9.8.7")))
        #expect(try !pattern("10.0.0.0/8").matches(name: "10.9.8.7", port: 80), "a network never matches by name")
        #expect(try pattern("127.0.0.1:8080").matches(address: address("127.0.0.1", 8080)))
        #expect(try !pattern("127.0.0.1:8080").matches(address: address("127.0.0.1", 8081)))
        #expect(try pattern("[::1]:443").matches(address: address("::1", 443)))
        #expect(try pattern("fd00::/8").matches(address: address("fd12::5")))
        #expect(try pattern("[fd00::/8]:22").matches(address: address("fd12::5", 22)))
        #expect(try pattern("Example.COM:443").matches(name: "example.com", port: 443))
        #expect(try !pattern("example.com:443").matches(name: "example.com", port: 80))
        #expect(try pattern("*.internal").matches(name: "db.eu.Internal", port: 5432))
        #expect(try !pattern("*.internal").matches(name: "internal", port: 5432))
        #expect(try pattern("*:443").matches(name: "anything", port: 443))
        #expect(try pattern("*:443").matches(address: address("192.0.2.1", 443)))
        #expect(try !pattern("*:443").matches(address: address("192.0.2.1", 80)))
    }

    @Test(arguments: ["", ":80", "host:0", "host:65536", "host:x", "[::1", "[::1]x", "[nope]:80", "exa mple", "a*b.com", "10.0.0.0/33:80"])
    func badPatternsAreRefused(text: String) {
        #expect(throws: SocketEngineError.self) { _ = try DestinationPattern(parsing: text) }
    }

    @Test func denyRefusesANameOrEveryResolvedAddress() throws {
        let policy = DestinationPolicy(deny: [try pattern("127.0.0.0/8"), try pattern("*.blocked")])
        let blocked = TunnelTarget(host: "db.blocked", port: 80)
        #expect(policy.verdict(for: blocked) == .refused("matches \(SettingKey.denyDestination) *.blocked"))
        let local = TunnelTarget(host: "localhost", port: 80)
        #expect(policy.verdict(for: local) == .byAddress)
        // Only the addresses outside the denied network are dialled; none left is a refusal.
        let mixed = policy.addresses([try address("127.0.0.1"), try address("::1")], of: local)
        #expect((try? mixed.get()) == [try address("::1")])
        let none = policy.addresses([try address("127.0.0.1")], of: local)
        #expect(throws: SocketEngineError.self) { try none.get() }
        #expect(DestinationPolicy().verdict(for: local) == .allowed)
    }

    @Test func allowWinsAndRestrictsEverythingElse() throws {
        let policy = DestinationPolicy(allow: [try pattern("api.test:443"), try pattern("10.0.0.0/8")], deny: [try pattern("*")])
        #expect(policy.verdict(for: TunnelTarget(host: "api.test", port: 443)) == .allowed)
        let other = TunnelTarget(host: "other.test", port: 443)
        #expect(policy.verdict(for: other) == .byAddress)
        #expect((try? policy.addresses([try address("10.1.1.1", 443), try address("192.0.2.1", 443)], of: other).get()) == [try address("10.1.1.1", 443)])
        let refused = policy.addresses([try address("192.0.2.1", 443)], of: other)
        #expect(throws: SocketEngineError.self) { try refused.get() }
    }

    @Test func httpConnectRequestHeadsAreReadWithTheirLimits() {
        func read(_ text: String) -> TunnelMessage<HTTPConnect.ReceivedRequest> { HTTPConnect.ReceivedRequest.read(ByteBuffer(string: text)) }
        let head = "CONNECT [::1]:443 HTTP/1.1\r\nProxy-Authorization: Basic YWxpY2U6czNjcmV0\r\n\r\n"
        guard case .complete(let request, let length) = read(head + "behind") else {
            Issue.record("not read")
            return
        }
        #expect(request.target == TunnelTarget(host: .ipv6(Array(repeating: 0, count: 15) + [1]), port: 443))
        #expect(request.credentials == ProxyCredentials(username: "alice", password: "s3cret"))
        #expect(length == head.utf8.count, "the bytes behind the head stay for the tunnel")
        if case .incomplete = read("CONNECT a:1 HTTP/1.1\r\n") {} else { Issue.record("a head without its end asks for more") }
        if case .malformed = read("CONNECT a:0 HTTP/1.1\r\n\r\n") {} else { Issue.record("port 0 is malformed") }
        if case .malformed = read("CONNECT a:1\r\n\r\n") {} else { Issue.record("no version is malformed") }
        if case .malformed = read(String(repeating: "x", count: HTTPConnect.maximumHead)) {} else { Issue.record("an endless head is malformed") }
        if case .complete(let other, _) = read("GET / HTTP/1.1\r\n\r\n") { #expect(other.method == "GET" && other.target == nil) } else { Issue.record("GET not read") }
    }
}
