import NIOCore
import Testing
@testable import SocketEngine
import TestSupport

/// What `ChannelOpener` settles once, before any channel: the interface and the source.
@Suite(.hangGuard) struct ChannelOpenerTests {
    @Test func anUnknownInterfaceIsAConfigurationError() async throws {
        var options = ConnectOptions()
        options.interface = "nosuch0"
        do {
            _ = try await ChannelOpener.make(transport: .tcp, options: options, buffers: .nioDefaults)
            Issue.record("an unknown interface was accepted")
        } catch {
            #expect(error.code == .invalidConfiguration)
            #expect(error.message == "unknown interface 'nosuch0'")
        }
    }

    /// The source is resolved once; each connection binds the one of its target's family, and a
    /// target of a family the source lacks fails with `.bindFailed`.
    @Test func eachConnectionBindsTheSourceOfItsTargetsFamily() async throws {
        var options = ConnectOptions()
        options.source = try SourceAddress(parsing: "[::1]:0")
        let opener = try await ChannelOpener.make(transport: .tcp, options: options, buffers: .nioDefaults)
        #expect(try opener.source(for: try SocketAddress(ipAddress: "::1", port: 7))?.ipAddress == "::1")
        #expect(throws: SocketEngineError.self) { _ = try opener.source(for: try SocketAddress(ipAddress: "127.0.0.1", port: 7)) }
        let none = try await ChannelOpener.make(transport: .tcp, options: ConnectOptions(), buffers: .nioDefaults)
        #expect(try none.source(for: try SocketAddress(ipAddress: "127.0.0.1", port: 7)) == nil)
    }
}
