import NIOCore
import NIOPosix
import Synchronization
import Testing
@testable import SocketEngine
import TestSupport

/// `ChannelOpener`: what it settles once (the interface, the source), and the channels it opens
/// over real loopback sockets with a caller's own handler on them.
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

    // MARK: Channels

    @Test(arguments: [ChannelOpener.Buffers.connection, .nioDefaults])
    func aCallersHandlerReceivesTheServersBytesOverTCP(buffers: ChannelOpener.Buffers) async throws {
        let server = try await TestServer.start("127.0.0.1:0") { connection in
            try await connection.write(ByteBuffer(string: "over tcp"))
        }
        let endpoint = try Endpoint(parsing: "127.0.0.1:\(server.port)")
        let opener = try await ChannelOpener.make(transport: .tcp, options: .patient, buffers: buffers)
        #expect(try await Collected.open(opener, to: try SocketAddress(ipAddress: "127.0.0.1", port: server.port), endpoint: endpoint, bytes: 8) == "over tcp")
        await server.stop()
    }

    @Test func aCallersHandlerReceivesTheServersBytesOverUnix() async throws {
        let path = "/tmp/sockctl-opener-\(UInt32.random(in: 0...UInt32.max)).sock"
        let server = try await TestServer.start("unix:\(path)") { connection in
            try await connection.write(ByteBuffer(string: "over unix"))
        }
        let opener = try await ChannelOpener.make(transport: .unix, options: .patient, buffers: .connection)
        let text = try await Collected.open(
            opener, to: try SocketAddress(unixDomainSocketPath: path), endpoint: try Endpoint(parsing: "unix:\(path)"), bytes: 9)
        #expect(text == "over unix")
        await server.stop()
    }

    /// UDP: the handler goes on once the channel is connected, so what it writes (plain buffers)
    /// reaches the server, and the server's answer reaches it.
    @Test func aCallersHandlerReceivesTheServersDatagramsOverUDP() async throws {
        let listener = try await DatagramListener.bind(try Endpoint(parsing: "udp://127.0.0.1:0", role: .listener))
        let port = listener.localAddresses[0].port ?? 0
        let answer = Task {
            for await datagram in listener.datagrams {
                try? await listener.reply(to: datagram, with: ByteBuffer(string: "answered " + (string(datagram.data) ?? "")))
            }
        }
        let opener = try await ChannelOpener.make(transport: .udp, options: .patient, buffers: .connection)
        let text = try await Collected.open(
            opener, to: try SocketAddress(ipAddress: "127.0.0.1", port: port), endpoint: try Endpoint(parsing: "udp://127.0.0.1:\(port)"),
            bytes: 13, datagram: true, greeting: "over udp")
        #expect(text == "answered over udp")
        await listener.close()
        answer.cancel()
    }

    /// The server sees the connection come from the source address (any of 127/8 is this host's).
    @Test func theSourceBindShowsAsTheServersPeerAddress() async throws {
        let server = try await TestServer.start("127.0.0.1:0") { connection in
            try await connection.write(ByteBuffer(string: connection.remoteAddress?.ipAddress ?? "none"))
        }
        var options = ConnectOptions.patient
        options.source = try SourceAddress(parsing: "127.0.0.5")
        let opener = try await ChannelOpener.make(transport: .tcp, options: options, buffers: .nioDefaults)
        let text = try await Collected.open(
            opener, to: try SocketAddress(ipAddress: "127.0.0.1", port: server.port), endpoint: try Endpoint(parsing: "127.0.0.1:\(server.port)"),
            bytes: 9)
        #expect(text == "127.0.0.5")
        await server.stop()
    }

    /// ws://: the caller's handler goes on only once the server's 101 is in (the server has
    /// answered when it runs), above the WebSocket layer, and the frame the server sent in the
    /// same write as its 101 reaches it as the message's payload. The open completes once
    /// upgraded (the handler is on by then). The server closes right after, so that a handler
    /// that never gets the message sees the end instead of waiting.
    @Test func overWebSocketTheHandlerGoesOnAfterThe101AndGetsTheFramesBehindIt() async throws {
        let answered = Mutex(false)
        let server = try await ScriptedUpgradeServer(closing: true) { key in
            answered.withLock { $0 = true }
            return ScriptedUpgradeServer.switching(accept: ScriptedUpgradeServer.accept(for: key), behind: [0x81, 0x05] + Array("hello".utf8))
        }
        let endpoint = try Endpoint(parsing: "ws://127.0.0.1:\(server.port)/chat")
        let opener = try await ChannelOpener.make(transport: .ws, options: .patient, buffers: .nioDefaults)
        let installedAfterAnswer = Mutex<Bool?>(nil)
        let installedWhenOpened = Mutex(false)
        let text = try await Collected.open(
            opener, to: try SocketAddress(ipAddress: "127.0.0.1", port: server.port), endpoint: endpoint, bytes: 5,
            installed: { installing in
                installedAfterAnswer.withLock { $0 = answered.withLock { $0 } && installing.webSocket?.handshake.resource == "/chat" }
            },
            opened: { installedWhenOpened.withLock { $0 = installedAfterAnswer.withLock { $0 } != nil } }
        )
        #expect(installedAfterAnswer.withLock { $0 } == true)
        #expect(installedWhenOpened.withLock { $0 })
        #expect(text == "hello")
        await server.stop()
    }

    /// ws://: a refused upgrade fails the open with the engine's wording.
    @Test func overWebSocketARefusedUpgradeFailsTheOpen() async throws {
        let server = try await ScriptedUpgradeServer { _ in
            ByteBuffer(string: "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        }
        let opener = try await ChannelOpener.make(transport: .ws, options: .patient, buffers: .nioDefaults)
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let installed = Mutex(false)
        let hooks = ChannelOpener.Hooks { _, _ in installed.withLock { $0 = true } }
        await #expect {
            _ = try await opener.open(
                to: try SocketAddress(ipAddress: "127.0.0.1", port: server.port), endpoint: try Endpoint(parsing: "ws://127.0.0.1:\(server.port)/"),
                on: loop, hooks: hooks
            ).get()
        } throws: { error in
            guard let error = error as? SocketEngineError else { return false }
            return error.code == .webSocketHandshake && error.message.hasSuffix("failed: the server answered 404 Not Found")
        }
        #expect(!installed.withLock { $0 })
        await server.stop()
    }

    /// ws://: a server that never answers the upgrade: the open fails within the connect
    /// timeout with the load connections' wording (the threads path words it the same), and the
    /// channel is closed. Waits for the failure, whenever it comes; no bound on how long it took.
    @Test func overWebSocketASilentServerFailsTheOpenWithinTheConnectTimeout() async throws {
        let server = try await ScriptedUpgradeServer { _ in nil }
        var options = ConnectOptions.patient
        options.connectTimeout = .seconds(1)
        let opener = try await ChannelOpener.make(transport: .ws, options: options, buffers: .nioDefaults)
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let channels = Mutex<[any Channel]>([])
        let hooks = ChannelOpener.Hooks { channel, _ in channels.withLock { $0.append(channel) } }
        let endpoint = try Endpoint(parsing: "ws://127.0.0.1:\(server.port)/chat")
        await #expect {
            _ = try await opener.open(to: try SocketAddress(ipAddress: "127.0.0.1", port: server.port), endpoint: endpoint, on: loop, hooks: hooks).get()
        } throws: { error in
            guard let error = error as? SocketEngineError else { return false }
            return error.code == .connectTimeout && error.message == "WebSocket connection to \(endpoint) not upgraded within 1s"
        }
        #expect(channels.withLock { $0.isEmpty })
        await server.stop()
    }
}

/// A caller's own handler: collects what it reads until it has `bytes` bytes.
private final class Collected: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private let bytes: Int
    private let done: EventLoopPromise<String>
    private let greeting: String?
    private var text = ""

    init(bytes: Int, done: EventLoopPromise<String>, greeting: String?) {
        self.bytes = bytes
        self.done = done
        self.greeting = greeting
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard let greeting else { return }
        let done = self.done
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: greeting))).whenFailure { done.fail($0) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        text += String(buffer: unwrapInboundIn(data))
        if text.utf8.count >= bytes { done.succeed(text) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        done.fail(ChannelError.eof)
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, case .inputClosed = event { done.fail(ChannelError.eof) }
        context.fireUserInboundEventTriggered(event)
    }

    /// Opens a channel with this handler on it (udp: behind an unwrapper of datagrams, sending
    /// `greeting` once on), and returns what it read; `installed` sees what the install hook was
    /// told, `opened` runs as the open completes.
    static func open(
        _ opener: ChannelOpener, to address: SocketAddress, endpoint: Endpoint, bytes: Int, datagram: Bool = false, greeting: String? = nil,
        installed: @escaping @Sendable (ChannelOpener.Installing) -> Void = { _ in }, opened: @escaping @Sendable () -> Void = {}
    ) async throws -> String {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let done = loop.makePromise(of: String.self)
        let hooks = ChannelOpener.Hooks { channel, installing in
            installed(installing)
            if datagram { try channel.pipeline.syncOperations.addHandler(DatagramUnwrapHandler()) }
            try channel.pipeline.syncOperations.addHandler(Collected(bytes: bytes, done: done, greeting: greeting))
        }
        let channel: any Channel
        do {
            // Seen on the loop as the open completes, before anything else happens there: the
            // handler is on by then (else nothing would ever complete `done`).
            channel = try await opener.open(to: address, endpoint: endpoint, on: loop, hooks: hooks).flatMapThrowing { channel in
                opened()
                _ = try channel.pipeline.syncOperations.handler(type: Collected.self)
                return channel
            }.get()
        } catch {
            done.fail(error)
            throw error
        }
        defer { channel.close(promise: nil) }
        return try await done.futureResult.get()
    }
}
