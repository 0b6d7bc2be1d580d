import Testing
@testable import SocketEngine
import TestSupport

@Suite(.hangGuard) struct EndpointTests {
    @Test(arguments: [
        ("127.0.0.1:80", Endpoint.Transport.tcp, "127.0.0.1", 80),
        ("localhost:7000", .tcp, "localhost", 7000),
        ("[::1]:9000", .tcp, "::1", 9000),
        ("[fe80::1%lo]:22", .tcp, "fe80::1%lo", 22),
        ("tcp://example.com:443", .tcp, "example.com", 443),
        ("udp://127.0.0.1:5353", .udp, "127.0.0.1", 5353),
        ("UDP://[::1]:53", .udp, "::1", 53),
        ("tls://example.com:443", .tls, "example.com", 443),
        ("host-with_dash.example:65535", .tcp, "host-with_dash.example", 65535),
    ])
    func clientEndpointsParse(text: String, transport: Endpoint.Transport, host: String, port: Int) throws {
        let endpoint = try Endpoint(parsing: text)
        #expect(endpoint.transport == transport)
        #expect(endpoint.host == host)
        #expect(endpoint.port == port)
    }

    @Test func unixPathsKeepEverythingAfterTheScheme() throws {
        #expect(try Endpoint(parsing: "unix:/run/app.sock").path == "/run/app.sock")
        #expect(try Endpoint(parsing: "unix:///tmp/x.sock").path == "/tmp/x.sock")
        #expect(try Endpoint(parsing: "unix:relative.sock").path == "relative.sock")
    }

    @Test func webSocketEndpointsHaveDefaultPortsAndPaths() throws {
        let plain = try Endpoint(parsing: "ws://example.com/chat?room=1")
        #expect(plain.transport == .ws)
        #expect(plain.port == 80)
        #expect(plain.resource == "/chat?room=1")
        let secure = try Endpoint(parsing: "wss://[::1]:8443")
        #expect(secure.port == 8443)
        #expect(secure.host == "::1")
        #expect(secure.resource == "/")
    }

    @Test func httpEndpointsHaveDefaultPortsTargetsAndCarriers() throws {
        let plain = try Endpoint(parsing: "http://example.com/item/1?x=2")
        #expect(plain.transport == .http)
        #expect(plain.port == 80)
        #expect(plain.resource == "/item/1?x=2")
        #expect(plain.transport.carrier == .tcp && !plain.transport.isSecured && plain.transport.isHTTP)
        let secure = try Endpoint(parsing: "https://127.0.0.1?q")
        #expect(secure.port == 443)
        #expect(secure.resource == "/?q")
        #expect(secure.transport.carrier == .tls && secure.transport.isSecured)
        #expect(Endpoint.Transport.wss.carrier == .tls && Endpoint.Transport.ws.carrier == .tcp)
        #expect(!Endpoint.Transport.ws.isSecured && Endpoint.Transport.tls.isSecured)
    }

    @Test(arguments: [
        ("8080", "", 8080),
        (":8080", "", 8080),
        ("0", "", 0),
        ("127.0.0.1:9000", "127.0.0.1", 9000),
        ("[::]:9000", "::", 9000),
        ("0.0.0.0:0", "0.0.0.0", 0),
    ])
    func listenerEndpointsAcceptABarePort(text: String, host: String, port: Int) throws {
        let endpoint = try Endpoint(parsing: text, role: .listener)
        #expect(endpoint.host == host)
        #expect(endpoint.port == port)
    }

    @Test(arguments: [
        ("localhost:0", "port 0 is out of range"),
        ("localhost:65536", "port 65536 is out of range"),
        ("localhost:99999999", "port '99999999' is not a number"),
        ("localhost:-1", "port '-1' is not a number"),
        ("localhost:http", "port 'http' is not a number"),
        ("localhost", "missing port"),
        ("localhost:", "missing port after ':'"),
        (":80", "empty host"),
        ("::1:80", "IPv6 addresses need brackets"),
        ("[::1:80", "missing ']'"),
        ("[::1]80", "unexpected '80' after ']'"),
        ("[nothex]:80", "'nothex' is not an IPv6 address"),
        ("gopher://host:70", "unknown scheme 'gopher'"),
        ("unix:", "empty socket path"),
        ("", "empty endpoint"),
        ("bad host:80", "contains whitespace"),
        ("ho$t:80", "invalid character '$'"),
        ("tcp://host:80/path", "unexpected '/'"),
        ("8080", "missing port"),
    ])
    func badEndpointsNameTheBadPart(text: String, fragment: String) {
        #expect {
            _ = try Endpoint(parsing: text)
        } throws: { error in
            guard let error = error as? SocketEngineError else { return false }
            return error.code == .invalidEndpoint && error.message.contains(fragment) && !error.message.contains("\n")
        }
    }

    @Test func unixPathsLongerThanSunPathAreRefused() {
        let path = "/tmp/" + String(repeating: "a", count: 120)
        #expect(throws: SocketEngineError.self) { _ = try Endpoint(parsing: "unix:\(path)") }
    }

    @Test func descriptionRoundTrips() throws {
        for text in ["127.0.0.1:80", "[::1]:80", "udp://127.0.0.1:53", "unix:/tmp/a.sock", "ws://h:80/x", "http://h:8080/a?b", "https://[::1]:443/"] {
            #expect(try Endpoint(parsing: text).description == text)
        }
    }
}
