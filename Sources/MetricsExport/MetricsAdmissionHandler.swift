import NIOCore
import SocketEngine

/// Admits or refuses each scraper on the metrics server's listening channel, in accept order: at
/// most ``MetricsServerLimits/maximumConnections`` at once, and none while fewer than the
/// descriptor reserve are free. A refused scraper is closed before NIO registers it, and reported.
final class MetricsAdmissionHandler: ChannelInboundHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    private let limits: MetricsServerLimits
    private let connections: MetricsServer.Connections
    private let available: @Sendable () -> Int?
    private let report: @Sendable (MetricsServerEvent) -> Void

    /// `available`: how many more descriptors the process may open (nil: none, as far as can be told).
    init(
        limits: MetricsServerLimits, connections: MetricsServer.Connections, available: @escaping @Sendable () -> Int?,
        report: @escaping @Sendable (MetricsServerEvent) -> Void
    ) {
        self.limits = limits
        self.connections = connections
        self.available = available
        self.report = report
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let child = unwrapInboundIn(data)
        if let reason = refusal(for: child) {
            report(.refused(peer: child.remoteAddress?.displayString ?? "?", reason: reason))
            child.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }

    /// Why `child` may not be served; nil when it may (it then counts as open).
    private func refusal(for child: any Channel) -> String? {
        if connections.count >= limits.maximumConnections {
            return "\(limits.maximumConnections) connections open (the most at once)"
        }
        if let reserve = limits.descriptorReserve, reserve > 0 {
            let free = available() ?? 0
            if free < reserve {
                return "only \(free) file descriptors free, \(reserve) kept for the service"
            }
        }
        guard connections.add(child, limit: limits.maximumConnections) else {
            return "\(limits.maximumConnections) connections open (the most at once)"
        }
        return nil
    }
}
