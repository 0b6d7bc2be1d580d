import NIOCore
import NIOHTTP1
import NIOPosix
import SocketEngine
import Synchronization

/// A small HTTP/1 server for `/metrics` (SwiftNIO, on the process's shared event loops): what
/// `--metrics-listen` starts before the run and closes after its summary.
///
/// Every connection is answered by a ``MetricsHTTPHandler`` over the one ``MetricsRegistry``.
/// ``close()`` closes the listening socket and every scraper's connection. The server keeps
/// within its ``MetricsServerLimits`` (connections, idle time, descriptors left for the
/// service) and reports what it refused or closed through `onEvent`.
public final class MetricsServer: Sendable {
    /// What the server serves.
    public let registry: MetricsRegistry
    /// The address bound (with the kernel's port when 0 was asked for).
    public let localAddress: SocketAddress
    /// A loop of the server's, for timers about it (``MetricsRegistry/waitForFinalScrapes(_:timeout:on:)``).
    public let eventLoop: any EventLoop
    private let channel: any Channel
    private let connections: Connections
    private let events: AsyncStream<MetricsServerEvent>.Continuation

    /// The scrapers' open connections, closed with the server.
    final class Connections: Sendable {
        private let open = Mutex<[ObjectIdentifier: any Channel]>([:])

        /// Adds `channel` unless `limit` are open already; it leaves when it closes.
        func add(_ channel: any Channel, limit: Int) -> Bool {
            let key = ObjectIdentifier(channel)
            let added = open.withLock { open -> Bool in
                guard open.count < limit else { return false }
                open[key] = channel
                return true
            }
            if added { channel.closeFuture.whenComplete { [self] _ in _ = open.withLock { $0.removeValue(forKey: key) } } }
            return added
        }

        var count: Int { open.withLock { $0.count } }

        func all() -> [any Channel] { open.withLock { Array($0.values) } }
    }

    private init(
        registry: MetricsRegistry, channel: any Channel, connections: Connections, events: AsyncStream<MetricsServerEvent>.Continuation
    ) throws(MetricsExportError) {
        guard let address = channel.localAddress else {
            throw MetricsExportError(.bindFailed, "the metrics socket has no local address")
        }
        self.registry = registry
        self.channel = channel
        self.connections = connections
        self.events = events
        self.localAddress = address
        self.eventLoop = channel.eventLoop
    }

    /// Binds `address` and serves `registry` there until ``close()``, within `limits`; `onEvent`
    /// hears of every scraper refused or closed for idling (from a task of its own, never on
    /// the event loop; under a flood the oldest unread events are dropped). Throws `.bindFailed`
    /// (in use, not a local address, no permission) naming the address.
    public static func start(
        _ address: MetricsListenAddress, registry: MetricsRegistry, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        limits: MetricsServerLimits = MetricsServerLimits(), onEvent: @escaping @Sendable (MetricsServerEvent) -> Void = { _ in }
    ) async throws(MetricsExportError) -> MetricsServer {
        let connections = Connections()
        let (stream, events) = AsyncStream<MetricsServerEvent>.makeStream(bufferingPolicy: .bufferingNewest(64))
        var limits = limits
        if limits.descriptorReserve == nil {
            limits.descriptorReserve = MetricsServerLimits.reserve(forLimit: DescriptorLimit.current() ?? 1024)
        }
        let settled = limits
        let report: @Sendable (MetricsServerEvent) -> Void = { events.yield($0) }
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .serverChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(AcceptBackoffHandler(shouldForwardIOErrorCaught: false))
                        try channel.pipeline.syncOperations.addHandler(
                            MetricsAdmissionHandler(limits: settled, connections: connections, available: DescriptorLimit.available, report: report)
                        )
                    }
                }
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(
                            MetricsHTTPHandler(registry: registry, idleTimeout: settled.idleTimeout, report: report)
                        )
                    }
                }
                .bind(host: address.host, port: address.port)
                .get()
        } catch {
            events.finish()
            // An address that names no local address (`999.0.0.1`) is the command line's mistake;
            // one in use or not permitted is a failure of the run.
            let wrapped = SocketEngineError.wrapping(error, context: "\(address)")
            let unknownHost = error is SocketAddressError || error is SocketAddressError.UnknownHost
            throw MetricsExportError(wrapped.isUsageError || unknownHost ? .invalidAddress : .bindFailed, "\(.metricsListen) \(wrapped.text)")
        }
        Task {
            for await event in stream { onEvent(event) }
        }
        return try MetricsServer(registry: registry, channel: channel, connections: connections, events: events)
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
        events.finish()
    }
}
