import NIOCore
import NIOEmbedded
import Testing
@testable import SocketEngine
import TestSupport

/// The `ws://` listener's handshake timeout in the event loop's virtual time: an accepted
/// client's channel set up as the listener sets it up, fed half an upgrade request (a
/// slowloris) or a whole one.
@Suite(.hangGuard)
struct WebSocketHandshakeTimeoutTests {
    static let request = "GET /chat HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"

    struct Accepted {
        let loop = NIOAsyncTestingEventLoop()
        let server: NIOAsyncTestingChannel
        let refusals = Refusals()
        let admitted = SharedCounter()

        init(handshakeTimeout: Duration? = nil) async throws {
            var settings = ListenOptions()
            if let handshakeTimeout { settings.slotRules.handshakeTimeout = handshakeTimeout }
            server = NIOAsyncTestingChannel(loop: loop)
            let endpoint = try Endpoint(parsing: "ws://127.0.0.1:8080/chat", role: .listener)
            let (server, refusals, admitted, options) = (server, refusals, admitted, settings)
            try await loop.executeInContext {
                try Listener.prepareClient(server, endpoint: endpoint, options: options, refusals: refusals, slot: nil) { _ in
                    admitted.add()
                }
            }
            try await server.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 8080)).get()
        }

        func advance(to time: Duration) async {
            await loop.advanceTime(to: .uptimeNanoseconds(UInt64(time.nanosecondsClamped)))
        }

        func reasons() async -> [String] {
            refusals.finish()
            var reasons: [String] = []
            for await case .rejected(_, let reason) in refusals.stream { reasons.append(reason.description) }
            return reasons
        }
    }

    /// Half the request's headers, a byte at a time, then nothing: closed exactly at the
    /// handshake timeout (3 s here), counted as refused with the reason.
    @Test func aRequestThatNeverEndsIsClosedAtTheHandshakeTimeout() async throws {
        let accepted = try await Accepted(handshakeTimeout: .seconds(3))
        for (index, byte) in Self.request.utf8.prefix(60).enumerated() {
            await accepted.advance(to: .milliseconds(Int64(index) * 40))
            try await accepted.server.writeInbound(ByteBuffer(bytes: [byte]))
        }
        await accepted.advance(to: .milliseconds(2999))
        #expect(accepted.server.isActive)
        await accepted.advance(to: .seconds(3))
        #expect(!accepted.server.isActive)
        #expect(await accepted.reasons() == ["no WebSocket handshake within 3s"])
        #expect(accepted.admitted.count == 0)
    }

    /// A whole request in time: upgraded, handed out, and kept long past the timeout.
    @Test func anUpgradeInTimeIsHandedOutAndKept() async throws {
        let accepted = try await Accepted()
        await accepted.advance(to: .milliseconds(9999))
        try await accepted.server.writeInbound(ByteBuffer(string: Self.request))
        await accepted.loop.run()
        #expect(accepted.admitted.count == 1)
        await accepted.advance(to: .seconds(60))
        #expect(accepted.server.isActive)
        #expect(await accepted.reasons() == [])
    }
}
