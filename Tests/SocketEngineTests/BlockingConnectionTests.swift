import NIOCore
import SocketEngine
import TestSupport
import Testing

/// ``BlockingConnection`` against loopback servers: the WebSocket upgrade is the event loops'
/// negotiation (NIO's accept-key check, the engine's subprotocol and extension checks, its
/// wording), the bytes behind a 101 are kept, and a server that never answers fails the
/// connect at its timeout.
@Suite(.hangGuard)
struct BlockingConnectionTests {
    /// Opens `ws://127.0.0.1:PORT/` on a thread of its own; the error's code and message, or the
    /// leftover and whether the stream is the bare socket.
    static func open(_ port: Int, subprotocols: [String] = [], timeout: Duration = .seconds(3600)) async throws
        -> Result<(leftover: [UInt8], bare: Bool), SocketEngineError>
    {
        let endpoint = try Endpoint(parsing: "ws://127.0.0.1:\(port)/chat")
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: port)
        var options = ConnectOptions.patient
        options.connectTimeout = timeout
        options.webSocket.subprotocols = subprotocols
        let settings = options
        return try await onOwnThread {
            do {
                let opened = try BlockingConnection.open(endpoint, address: address, source: nil, options: settings)
                defer { opened.stream.close() }
                return .success((Array(opened.leftover.readableBytesView), opened.stream is BlockingSocket))
            } catch let error as SocketEngineError {
                return .failure(error)
            }
        }
    }

    @Test func aWrongAcceptKeyIsRefused() async throws {
        let server = try await ScriptedUpgradeServer { _ in ScriptedUpgradeServer.switching(accept: "bm90IHRoZSBrZXk=") }
        defer { Task { await server.stop() } }
        let result = try await Self.open(server.port)
        guard case .failure(let error) = result else { Issue.record("upgraded: \(result)"); return }
        #expect(error.code == .webSocketHandshake)
        #expect(error.message == "WebSocket handshake with 127.0.0.1:\(server.port) failed: Sec-WebSocket-Accept is missing or does not match the key sent")
    }

    @Test func aSubprotocolThatWasNotOfferedIsRefused() async throws {
        let server = try await ScriptedUpgradeServer { key in
            ScriptedUpgradeServer.switching(accept: ScriptedUpgradeServer.accept(for: key), ["Sec-WebSocket-Protocol: other"])
        }
        defer { Task { await server.stop() } }
        let result = try await Self.open(server.port, subprotocols: ["chat"])
        guard case .failure(let error) = result else { Issue.record("upgraded: \(result)"); return }
        #expect(error.code == .webSocketHandshake)
        #expect(error.message == "the server chose subprotocol 'other', which was not offered (offered: chat)")
    }

    @Test func anExtensionThatWasNotOfferedIsRefused() async throws {
        let server = try await ScriptedUpgradeServer { key in
            ScriptedUpgradeServer.switching(accept: ScriptedUpgradeServer.accept(for: key), ["Sec-WebSocket-Extensions: permessage-deflate"])
        }
        defer { Task { await server.stop() } }
        let result = try await Self.open(server.port)
        guard case .failure(let error) = result else { Issue.record("upgraded: \(result)"); return }
        #expect(error.code == .webSocketHandshake)
        #expect(error.message == "the server chose an extension, but none was offered")
    }

    /// Two frames written in the same segment as the 101 come back as they were sent, and the
    /// connection goes on over the bare socket (nothing between the framer and the kernel).
    @Test func framesRightBehindThe101AreKept() async throws {
        let frames: [UInt8] = [0x81, 0x05] + Array("hello".utf8) + [0x82, 0x02, 0x01, 0x02]
        let server = try await ScriptedUpgradeServer { key in
            ScriptedUpgradeServer.switching(accept: ScriptedUpgradeServer.accept(for: key), behind: frames)
        }
        defer { Task { await server.stop() } }
        let result = try await Self.open(server.port)
        guard case .success(let opened) = result else { Issue.record("not upgraded: \(result)"); return }
        #expect(opened.leftover == frames)
        #expect(opened.bare)
    }

    /// A server that takes the request and never answers: the open fails as a connect timeout.
    @Test func aSilentServerFailsAtTheConnectTimeout() async throws {
        let server = try await ScriptedUpgradeServer { _ in nil }
        defer { Task { await server.stop() } }
        let result = try await Self.open(server.port, timeout: .milliseconds(200))
        guard case .failure(let error) = result else { Issue.record("upgraded: \(result)"); return }
        #expect(error.code == .connectTimeout)
        #expect(error.message.hasPrefix("WebSocket connection to ws://127.0.0.1:\(server.port)/chat not upgraded within"))
    }
}
