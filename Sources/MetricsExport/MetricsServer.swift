import NIOCore
import NIOHTTP1
import NIOPosix
import SocketEngine
import Synchronization

/// A small HTTP/1 server for `/metrics` (SwiftNIO, on the process's shared event loops): what
/// `--metrics-listen` starts before the run and closes after its summary.
///
/// Every connection is answered by a ``MetricsHTTPHandler`` over the one ``MetricsRegistry``.
/// ``close()`` closes the listening socket and every scraper's connection.
public final class MetricsServer: Sendable {
    /// What the server serves.
    public let registry: MetricsRegistry
    /// The address bound (with the kernel's port when 0 was asked for).
    public let localAddress: SocketAddress
    /// A loop of the server's, for timers about it (``MetricsRegistry/waitForFinalScrapes(_:timeout:on:)``).
    public let eventLoop: any EventLoop
    private let channel: any Channel
    private let connections: Connections

    /// The scrapers' open connections, closed with the server.
    private final class Connections: Sendable {
        private let open = Mutex<[ObjectIdentifier: any Channel]>([:])

        func add(_ channel: any Channel) {
            let key = ObjectIdentifier(channel)
            open.withLock { $0[key] = channel }
            channel.closeFuture.whenComplete { [self] _ in _ = open.withLock { $0.removeValue(forKey: key) } }
        }

        func all() -> [any Channel] { open.withLock { Array($0.values) } }
    }

    private init(registry: MetricsRegistry, channel: any Channel, connections: Connections) throws(MetricsExportError) {
        guard let address = channel.localAddress else {
            throw MetricsExportError(.bindFailed, "the metrics socket has no local address")
        }
        self.registry = registry
        self.channel = channel
        self.connections = connections
        self.localAddress = address
        self.eventLoop = channel.eventLoop
    }

    /// Binds `address` and serves `registry` there until ``close()``. Throws `.bindFailed` (in
    /// use, not a local address, no permission) naming the address.
    public static func start(
        _ address: MetricsListenAddress, registry: MetricsRegistry, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(MetricsExportError) -> MetricsServer {
        let connections = Connections()
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        connections.add(channel)
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(MetricsHTTPHandler(registry: registry))
                    }
                }
                .bind(host: address.host, port: address.port)
                .get()
        } catch {
            throw MetricsExportError(.bindFailed, SocketEngineError.wrapping(error, context: "--metrics-listen \(address)").message)
        }
        return try MetricsServer(registry: registry, channel: channel, connections: connections)
    }

    /// `http://127.0.0.1:9464/metrics`.
    public var url: String {
        let host = localAddress.ipAddress ?? "localhost"
        let port = localAddress.port ?? 0
        return host.contains(":") ? "http://[\(host)]:\(port)/metrics" : "http://\(host):\(port)/metrics"
    }

    /// Stops listening and closes every scraper's connection.
    public func close() async {
        try? await channel.close()
        for connection in connections.all() { try? await connection.close() }
    }
}
