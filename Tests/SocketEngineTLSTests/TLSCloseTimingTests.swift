import NIOCore
import NIOEmbedded
import SocketEngine
import TestSupport
import Testing
@testable import SocketEngineTLS

/// Closing a TLS connection, in the event loop's virtual time: two channels on one
/// `NIOAsyncTestingEventLoop`, their TLS layers talking through the test (which carries each
/// side's bytes to the other), so what waits for what — and for how long — is exact.
@Suite(.hangGuard)
struct TLSCloseTimingTests {
    struct Pair {
        let loop = NIOAsyncTestingEventLoop()
        let client: NIOAsyncTestingChannel
        let server: NIOAsyncTestingChannel

        /// Both sides handshaken, with the test CA.
        init() async throws {
            let certificates = try await TestCertificates.shared.directory()
            let serverLayer = try TLSLayer(server: TLSServerOptions(certificateFile: "\(certificates)/server.pem", keyFile: "\(certificates)/server.key"))
            var options = TLSClientOptions()
            options.caFile = "\(certificates)/ca.pem"
            let clientLayer = try TLSLayer(client: options)
            client = NIOAsyncTestingChannel(loop: loop)
            server = NIOAsyncTestingChannel(loop: loop)
            let (client, server) = (client, server)
            let handshakes = try await loop.executeInContext {
                (try serverLayer.addServerLayer(to: server), try clientLayer.addClientLayer(to: client, host: "localhost"))
            }
            let address = try SocketAddress(ipAddress: "127.0.0.1", port: 7443)
            try await server.connect(to: address).get()
            try await client.connect(to: address).get()
            try await pump()
            _ = try await handshakes.0.get()
            _ = try await handshakes.1.get()
        }

        /// Carries what each side wrote to the other until neither has more.
        func pump() async throws {
            var moved = true
            while moved {
                moved = false
                while let bytes = try await client.readOutbound(as: ByteBuffer.self) {
                    if client.isActive || bytes.readableBytes > 0 { try await server.writeInbound(bytes) }
                    moved = true
                }
                while let bytes = try await server.readOutbound(as: ByteBuffer.self) {
                    try await client.writeInbound(bytes)
                    moved = true
                }
            }
        }

        func advance(toMilliseconds milliseconds: Int64) async {
            await loop.advanceTime(to: .uptimeNanoseconds(UInt64(milliseconds) * 1_000_000))
        }
    }

    /// A client that ended its side without a close_notify (a FIN, as most do): the server's
    /// close is done as soon as its own close_notify is written — at once, not after waiting
    /// for a close_notify that can no longer come.
    @Test func aPeerThatEndedWithoutCloseNotifyIsLetGoAtOnce() async throws {
        let pair = try await Pair()
        pair.server.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        pair.server.close(promise: nil)
        await pair.loop.run()
        #expect(!pair.server.isActive, "closed at once, at 0 ms")
    }

    /// A peer that is still there but does not answer our close_notify is waited for
    /// ``TLSLayer/shutdownTimeout`` (500 ms), then the connection is closed anyway.
    @Test func aSilentPeerIsWaitedForTheShutdownTimeoutThenClosed() async throws {
        let pair = try await Pair()
        #expect(TLSLayer.shutdownTimeout == .milliseconds(500))
        pair.server.close(promise: nil)
        await pair.loop.run()
        #expect(pair.server.isActive, "waiting for the peer's close_notify")
        await pair.advance(toMilliseconds: 499)
        #expect(pair.server.isActive)
        await pair.advance(toMilliseconds: 500)
        #expect(!pair.server.isActive)
    }

    /// A peer that answers our close_notify with its own: closed as soon as it does.
    @Test func aPeerThatAnswersTheCloseNotifyEndsTheCloseThen() async throws {
        let pair = try await Pair()
        pair.server.close(promise: nil)
        await pair.loop.run()
        await pair.advance(toMilliseconds: 40)
        try await pair.pump()
        await pair.loop.run()
        #expect(!pair.server.isActive, "closed at 40 ms, when the client's close_notify came")
    }
}
