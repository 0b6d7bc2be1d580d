import NIOCore
import SocketEngine

/// A loopback listener whose clients `handle` serves, each side by side, for the engine's
/// in-process tests (the real `Listener`, real sockets).
public struct TestServer: Sendable {
    public let listener: Listener
    let task: Task<Void, Never>
    /// The port the kernel gave the listener.
    public var port: Int { listener.localAddresses.first?.port ?? 0 }

    /// Binds `endpointText` (a port of 0 lets the kernel choose) and serves every client with
    /// `handle`, closing each connection when it returns. Patient by default (``ListenOptions/patient``).
    public static func start(
        _ endpointText: String = "127.0.0.1:0",
        options: ListenOptions = .patient,
        handle: @escaping @Sendable (Connection) async throws -> Void
    ) async throws -> TestServer {
        let listener = try await Listener.bind(try Endpoint(parsing: endpointText, role: .listener), options: options)
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                for await connection in listener.connections {
                    group.addTask {
                        try? await handle(connection)
                        await connection.close()
                    }
                }
            }
        }
        return TestServer(listener: listener, task: task)
    }

    /// Closes the listener and stops serving.
    public func stop() async {
        await listener.close()
        task.cancel()
    }
}

/// A loopback connect for a test: no connect deadline short of the hang guard (``ConnectOptions/patient``).
public func connect(_ text: String, options: ConnectOptions = .patient) async throws -> Connection {
    try await Connector(endpoint: try Endpoint(parsing: text), options: options).connect().0
}

/// The buffer's bytes as UTF-8 text, or nil for no buffer (a read that met the end).
public func string(_ buffer: ByteBuffer?) -> String? {
    buffer.map { String(decoding: $0.readableBytesView, as: UTF8.self) }
}
