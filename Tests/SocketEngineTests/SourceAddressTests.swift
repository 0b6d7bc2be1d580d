import NIOCore
import Testing
@testable import SocketEngine
import TestSupport

/// `--source`'s one reader: every connecting path binds what it says.
@Suite(.hangGuard) struct SourceAddressTests {
    @Test(arguments: [
        ("127.0.0.5", "127.0.0.5", 0),
        ("127.0.0.5:40000", "127.0.0.5", 40000),
        ("[::1]:40000", "::1", 40000),
        ("[::1]", "::1", 0),
        ("::1", "::1", 0),
        ("localhost:0", "localhost", 0),
    ])
    func hostAndPortAreReadOnce(text: String, host: String, port: Int) throws {
        let source = try SourceAddress(parsing: text)
        #expect(source.host == host)
        #expect(source.port == port)
        #expect(source.description == text)
    }

    @Test(arguments: ["127.0.0.1:99999", "127.0.0.1:-1", "127.0.0.1:x", "[::1]:65536", "[::1]x", "[::1]:", ""])
    func badPortsAndFormsAreRefused(text: String) {
        #expect(throws: SocketEngineError.self) { _ = try SourceAddress(parsing: text) }
    }

    /// A bracketed address with a port resolves to that address and port (the load test's own
    /// reader resolved `::1]:40000`).
    @Test func aBracketedAddressWithAPortResolvesToIt() async throws {
        let addresses = try await SourceAddress(parsing: "[::1]:40000").resolve(SystemResolver(), datagram: false)
        #expect(addresses.map(\.ipAddress) == ["::1"])
        #expect(addresses.map(\.port) == [40000])
    }

    @Test func aNameThatDoesNotResolveIsTheConfigurationsMistake() async throws {
        let source = try SourceAddress(parsing: unresolvableHost)
        await #expect(throws: SocketEngineError.self) { _ = try await source.resolve(SystemResolver(), datagram: false) }
        do {
            _ = try await source.resolve(SystemResolver(), datagram: false)
        } catch {
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.hasPrefix("source address: "))
        }
    }
}
