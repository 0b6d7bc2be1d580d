import NIOCore
import NIOHTTP1
import Synchronization
import Testing
@testable import SocketEngine
import TestSupport

/// A "TLS layer" that adds nothing: it records that it was asked, so `wss://` can be checked
/// to go through the hook, in order, without a TLS implementation.
final class RecordingSecureTransport: SecureTransport {
    let calls = Mutex<[String]>([])

    func addClientLayer(to channel: any Channel, host: String) throws -> EventLoopFuture<SecurityReport> {
        calls.withLock { $0.append("client \(host) handlers=\(Self.names(channel))") }
        return channel.eventLoop.makeSucceededFuture(SecurityReport(protocolVersion: "fake", verification: "none (test)"))
    }

    func addServerLayer(to channel: any Channel) throws -> EventLoopFuture<SecurityReport> {
        calls.withLock { $0.append("server handlers=\(Self.names(channel))") }
        return channel.eventLoop.makeSucceededFuture(SecurityReport(verification: "none (test)"))
    }

    /// 0 when no HTTP or engine handler is in the pipeline yet (the layer comes first).
    static func names(_ channel: any Channel) -> Int {
        let operations = channel.pipeline.syncOperations
        let present = [
            (try? operations.context(handlerType: HTTPRequestEncoder.self)) != nil,
            (try? operations.context(handlerType: HTTPResponseEncoder.self)) != nil,
            (try? operations.context(handlerType: ConnectionHandler.self)) != nil,
        ]
        return present.filter { $0 }.count
    }
}

@Suite(.hangGuard) struct WebSocketConnectionTests {
    static func echoServer(_ endpoint: String = "ws://127.0.0.1:0/ws", options: ListenOptions = .patient) async throws -> TestServer {
        var options = options
        options.webSocket.answer = .echo
        return try await TestServer.start(endpoint, options: options) { connection in
            _ = try await connection.discardAll()
        }
    }

    @Test func eachWriteIsOneMessageAndEachReadOneMessage() async throws {
        let server = try await Self.echoServer()
        let client = try await connect("ws://127.0.0.1:\(server.port)/ws")
        #expect(client.webSocket?.resource == "/ws")
        try await client.write(ByteBuffer(string: "one"))
        try await client.write(ByteBuffer(string: ""))
        try await client.write(ByteBuffer(repeating: 0x61, count: 300_000))
        #expect(string(try await client.read()) == "one")
        #expect(string(try await client.read()) == "")
        #expect(try await client.read()?.readableBytes == 300_000)
        // Half-closing sends the close frame; the server's answer ends the messages.
        try await client.closeWrite()
        #expect(try await client.read() == nil)
        await client.close()
        await server.stop()
    }

    @Test func aTextMessageThatIsNotUTF8FailsTheReadWith1007() async throws {
        // The server sends whatever it is given as text: invalid UTF-8 reaches the client.
        let server = try await TestServer.start("ws://127.0.0.1:0/") { connection in
            try await connection.write(ByteBuffer(bytes: [0x61, 0xED, 0xA0, 0x80]))
            _ = try await connection.read()
        }
        let client = try await connect("ws://127.0.0.1:\(server.port)/")
        await #expect {
            _ = try await client.read()
        } throws: { error in
            let engine = error as? SocketEngineError
            return engine?.code == .webSocketProtocol && engine?.message.contains("1007") == true
        }
        await client.close()
        await server.stop()
    }

    @Test func wssWithoutATLSLayerIsAUsageError() async throws {
        await #expect {
            _ = try await connect("wss://127.0.0.1:1/")
        } throws: { ($0 as? SocketEngineError)?.isUsageError == true }
        await #expect {
            _ = try await Listener.bind(try Endpoint(parsing: "wss://127.0.0.1:0/", role: .listener))
        } throws: { ($0 as? SocketEngineError)?.isUsageError == true }
    }

    @Test func wssPutsTheSecureLayerFirstOnBothSides() async throws {
        let serverLayer = RecordingSecureTransport()
        var listenOptions = ListenOptions.patient
        listenOptions.secureTransport = serverLayer
        let server = try await Self.echoServer("wss://127.0.0.1:0/secure", options: listenOptions)
        let clientLayer = RecordingSecureTransport()
        var options = ConnectOptions.patient
        options.secureTransport = clientLayer
        let (client, report) = try await Connector(endpoint: try Endpoint(parsing: "wss://127.0.0.1:\(server.port)/secure"), options: options).connect()
        #expect(report.security?.protocolVersion == "fake")
        try await client.write(ByteBuffer(string: "over the hook"))
        #expect(string(try await client.read()) == "over the hook")
        #expect(clientLayer.calls.withLock { $0 } == ["client 127.0.0.1 handlers=0"])
        #expect(serverLayer.calls.withLock { $0 } == ["server handlers=0"])
        await client.close()
        await server.stop()
    }
}
