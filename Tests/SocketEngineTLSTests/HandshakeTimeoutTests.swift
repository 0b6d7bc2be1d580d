import NIOCore
import NIOEmbedded
import TestSupport
import Testing
@testable import SocketEngine
@testable import SocketEngineTLS

/// The server side's handshake timeout on `tls://` and `wss://`, in the event loop's virtual
/// time: an accepted client's channel set up as a listener sets it up, with a real TLS client
/// on a second channel whose bytes the test carries (all of them, or only the first few).
@Suite(.hangGuard)
struct HandshakeTimeoutTests {
    struct Accepted {
        let loop = NIOAsyncTestingEventLoop()
        let client: NIOAsyncTestingChannel
        let server: NIOAsyncTestingChannel
        let refusals = Refusals()
        let admitted = SharedCounter()

        init(_ scheme: String, handshakeTimeout: Duration? = nil) async throws {
            let certificates = try await TestCertificates.shared.directory()
            var settings = ListenOptions()
            settings.secureTransport = try TLSLayer(server: TLSServerOptions(certificateFile: "\(certificates)/server.pem", keyFile: "\(certificates)/server.key"))
            if let handshakeTimeout { settings.slotRules.handshakeTimeout = handshakeTimeout }
            var clientOptions = TLSClientOptions()
            clientOptions.caFile = "\(certificates)/ca.pem"
            let clientLayer = try TLSLayer(client: clientOptions)
            client = NIOAsyncTestingChannel(loop: loop)
            server = NIOAsyncTestingChannel(loop: loop)
            let endpoint = try Endpoint(parsing: "\(scheme)://127.0.0.1:7443", role: .listener)
            let (client, server, refusals, admitted, options) = (client, server, refusals, admitted, settings)
            _ = try await loop.executeInContext {
                try Listener.prepareClient(server, endpoint: endpoint, options: options, refusals: refusals, slot: nil) { _ in
                    admitted.add()
                }
                return try clientLayer.addClientLayer(to: client, host: "localhost")
            }
            let address = try SocketAddress(ipAddress: "127.0.0.1", port: 7443)
            try await server.connect(to: address).get()
            try await client.connect(to: address).get()
        }

        /// Carries the client's first `limit` bytes to the server, and everything the server
        /// says back, until neither moves.
        func pump(clientBytes limit: Int = .max) async throws {
            var budget = limit
            var moved = true
            while moved {
                moved = false
                while budget > 0, var bytes = try await client.readOutbound(as: ByteBuffer.self) {
                    if let part = bytes.readSlice(length: min(budget, bytes.readableBytes)) {
                        budget -= part.readableBytes
                        try await server.writeInbound(part)
                        moved = true
                    }
                }
                while let bytes = try await server.readOutbound(as: ByteBuffer.self) {
                    try await client.writeInbound(bytes)
                    moved = true
                }
            }
        }

        func advance(to time: Duration) async {
            await loop.advanceTime(to: .uptimeNanoseconds(UInt64(time.nanosecondsClamped)))
        }

        /// The refusals reported so far (the stream ends here).
        func reasons() async -> [String] {
            refusals.finish()
            var reasons: [String] = []
            for await case .rejected(_, let reason) in refusals.stream { reasons.append(reason.description) }
            return reasons
        }
    }

    /// Half a ClientHello, then nothing: the client holds its place until exactly 10 s after
    /// the accept (the default), then it is closed and refused with the reason.
    @Test(arguments: ["tls", "wss"])
    func aStalledClientHelloIsClosedAtTheHandshakeTimeout(scheme: String) async throws {
        let accepted = try await Accepted(scheme)
        try await accepted.pump(clientBytes: 40)
        await accepted.advance(to: .milliseconds(9999))
        #expect(accepted.server.isActive)
        #expect(accepted.refusals.count.count == 0)
        await accepted.advance(to: .seconds(10))
        #expect(!accepted.server.isActive)
        #expect(await accepted.reasons() == ["no TLS handshake within 10s"])
        #expect(accepted.admitted.count == 0)
    }

    /// A handshake done in time hands the client out and stops the timer: still there long
    /// after, nothing refused. Over `tls://` with a handshake timeout of 2 s.
    @Test func aHandshakeDoneInTimeIsHandedOutAndKept() async throws {
        let accepted = try await Accepted("tls", handshakeTimeout: .seconds(2))
        await accepted.advance(to: .milliseconds(1999))
        try await accepted.pump()
        #expect(accepted.admitted.count == 1)
        await accepted.advance(to: .seconds(60))
        #expect(accepted.server.isActive)
        #expect(await accepted.reasons() == [])
    }

    /// A TLS handshake that fails (the client speaks plain HTTP) is one refusal with its reason
    /// — not a client handed out, nor a second refusal when the timer would have fired.
    @Test func aFailedHandshakeIsOneRefusalWithItsReason() async throws {
        let accepted = try await Accepted("tls")
        // The error goes on down the pipeline, which the testing channel may rethrow here.
        _ = try? await accepted.server.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
        await accepted.advance(to: .seconds(30))
        #expect(!accepted.server.isActive)
        #expect(await accepted.reasons() == ["TLS handshake failed: the peer does not speak TLS"])
        #expect(accepted.admitted.count == 0)
    }
}
