import Foundation
import Histogram
import NIOCore
import NIOPosix
import SocketEngine
import Synchronization

/// Runs a ``LoadPlan`` and returns its ``LoadReport``.
///
/// Phases: preflight (descriptor limit raised, port range checked) → find the target address
/// (a Happy Eyeballs probe connection for TCP, so every load connection uses an address that
/// answers) → ramp-up (connections opened at `connectRate`, spread over the event loops) →
/// the run (warm-up, then the measured part, sampled once a second) → drain (wait up to
/// `drainTimeout` for replies) → close and report.
///
/// What is not an error: refused connections, resets and timeouts during the run are counted
/// results (connections are reopened with back-off). What throws: an invalid plan, a name that
/// does not resolve. A run where no connection could be opened at all ends after the ramp-up.
///
/// ``stop()`` (SIGINT) ends a run early and in order: the ramp-up stops opening connections,
/// nothing due after the stop is sent, replies to what was sent are still waited for (the drain,
/// within `drainTimeout`), and the report covers the run until the stop, marked
/// ``LoadReport/interrupted``.
public final class LoadRunner: Sendable {
    /// The plan this runner runs.
    public let plan: LoadPlan
    /// `--metrics-listen`: set from the run once a second.
    let metrics: LoadMetrics?
    /// Descriptors a run leaves free for the process (output files, /proc, reconnects, the
    /// runtime's own), however many connections are asked for.
    static let descriptorReserve = 16
    private let stopRequest = StopRequest()

    /// Once a second during the measured part (and once for the warm-up, if any).
    public struct Progress: Sendable {
        /// Time since the end of the warm-up (negative during it).
        public var elapsed: Duration
        /// The length of the measured part (nil with `--requests`: it ends when they are done).
        public var total: Duration?
        /// True while the warm-up runs.
        public var warmingUp: Bool
        /// Connections open at the sample.
        public var open: Int
        package var sentPerSecond: Double
        package var receivedPerSecond: Double
        /// Errors counted since the previous sample.
        public var errors: Int
        /// Corrected latency over the last second, µs.
        package var p50: Double?
        package var p99: Double?
    }

    /// The event loops the connections use (`--io events`); nil: the run makes and shuts
    /// down ``LoadPlan/threads`` of its own.
    let eventLoops: (any EventLoopGroup)?

    /// A runner for `plan`; nothing happens until ``run(progress:)``. With `metrics`, its
    /// metrics follow the run once a second (``LoadMetricsEndpoint/finish(_:)`` sets the final
    /// numbers). With `eventLoops`, the connections use those loops (left running at the end);
    /// without, the run makes ``LoadPlan/threads`` loops and shuts them down. Every wait of the
    /// run (ramp-up, samples, drain) goes by the plan's ``ConnectOptions/clock``.
    public init(plan: LoadPlan, metrics: LoadMetricsEndpoint? = nil, eventLoops: (any EventLoopGroup)? = nil) {
        self.plan = plan
        self.metrics = metrics?.metrics
        self.eventLoops = eventLoops
    }

    /// Ends the run early (see the type's discussion); safe to call at any time, and more than once.
    public func stop() {
        stopRequest.request()
    }

    /// Runs the plan to the end and returns its report, passing `progress` a sample once a second.
    /// Throws `.invalidPlan` for a plan that cannot run (an unknown interface or `--source`
    /// included) and `.unreachableTarget` for a target that does not resolve or answer the
    /// probe; failed connections and messages are counted in the report, not thrown.
    public func run(progress: @escaping @Sendable (Progress) -> Void = { _ in }) async throws(LoadGenError) -> LoadReport {
        do {
            return try await runPlan(progress: progress)
        } catch let error as LoadGenError {
            throw error
        } catch let error as SocketEngineError {
            throw LoadGenError(error.isUsageError ? .invalidPlan : .unreachableTarget, error.text)
        } catch {
            throw LoadGenError(.unreachableTarget, "\(error)")
        }
    }

    private func runPlan(progress: @escaping @Sendable (Progress) -> Void) async throws -> LoadReport {
        try self.plan.validate()
        // Through a proxy that takes addresses (socks5://), the destinations' names are resolved
        // once, here: the threads of `--io threads` cannot wait for a resolver.
        var plan = self.plan
        for endpoint in plan.endpoints { _ = try ChannelOpener.proxy(for: endpoint, options: plan.connectOptions) }
        plan.connectOptions.proxy = try await plan.connectOptions.proxy?.resolvingNames(of: plan.endpoints, options: plan.connectOptions)
        let opener = try await ChannelOpener.make(transport: plan.endpoint.transport, options: plan.connectOptions, buffers: .nioDefaults)
        let descriptorLimit = DescriptorLimit.raiseToHardLimit()
        var warnings = SystemLimits.preflight(
            connections: plan.connections, descriptors: descriptorLimit, tcp: [.tcp, .http].contains(plan.endpoint.transport), destinations: plan.endpoints.count)
        var addresses: [SocketAddress] = []
        for endpoint in plan.endpoints { addresses.append(try await Self.targetAddress(endpoint, plan: plan, warnings: &warnings)) }
        let address = addresses.first
        let context = RunContext(plan: plan, addresses: addresses)
        let stop = stopRequest
        // The threads bind what the event loops' opener binds: the source of the target's family.
        let source = try address.flatMap { try opener.source(for: $0) }
        let clock = plan.connectOptions.clock
        var group: MultiThreadedEventLoopGroup?
        defer { group?.shutdownGracefully { _ in } }
        let workers: [any LoadWorker]
        /// The connections' own time, read once at the start: their messages are due at offsets from it.
        let transportNow: @Sendable () -> Int64
        if plan.resolvedIO == .threads {
            transportNow = { BlockingSocket.now() }
            workers = try (0..<plan.ioThreadCount).map { index in
                try LoadThread(index: index, context: context, endpoints: plan.endpoints, addresses: addresses, source: source, spin: plan.threadsSpin)
            }
        } else {
            let loops: any EventLoopGroup
            if let eventLoops {
                loops = eventLoops
            } else {
                let made = MultiThreadedEventLoopGroup(numberOfThreads: plan.threads)
                group = made
                loops = made
            }
            let first = loops.next()
            transportNow = { Int64(truncatingIfNeeded: first.now.uptimeNanoseconds) }
            let connect = Self.connector(plan: plan, context: context, opener: opener)
            workers = loops.makeIterator().map { LoadShard(loop: $0, context: context, connect: connect) }
        }
        // A stop brings the end of sending forward to its offset from the start (before the
        // start: nothing is sent).
        let runStart = Mutex<EngineClock.Instant?>(nil)
        let stopToken = stop.onStop { context.interrupt(at: runStart.withLock { $0 }.map { clock.elapsed(since: $0).nanosecondsClamped } ?? 0) }
        defer { stop.remove(stopToken) }
        let phases = RunPhases(plan: plan, clock: clock, stop: stop, metrics: metrics)

        // Connections past the descriptor limit are not attempted: a process out of descriptors
        // fails in places that cannot report it (libdispatch's thread-pool monitor traps when it
        // cannot open /proc), so a reserve stays free for the process itself.
        let inUse = DescriptorLimit.inUse() ?? 0
        let openable = min(plan.connections, max(0, descriptorLimit - inUse - Self.descriptorReserve))

        try await phases.rampUp(workers, openable: openable)

        // The run.
        let startedAt = plan.wallClock()
        let start = clock.now
        var timeline: [LoadReport.Interval] = []
        context.begin(at: transportNow())
        runStart.withLock { $0 = start }
        // Begun if any connection opened, even if all have been lost since (a server that died
        // during the ramp-up): their reconnections are under way and send when they open.
        if stop.isRequested {
            context.interrupt(at: clock.elapsed(since: start).nanosecondsClamped)
        } else if try await Self.sum(workers, { try await $0.totals().counters.connectsSucceeded }) > 0 {
            for worker in workers { worker.begin() }
            let (measureWarnings, intervals) = try await phases.measure(workers, context: context, start: start, progress: progress)
            warnings += measureWarnings
            timeline = intervals
        } else {
            warnings.append("no connection could be opened: the run was not started")
        }
        let sendingEnded = clock.elapsed(since: start).nanosecondsClamped
        try await phases.drain(workers)
        context.finish()
        for worker in workers { await worker.closeAll() }

        // Collect.
        var stats = LoadStats()
        for worker in workers { stats.add(try await worker.totals()) }
        if openable < plan.connections {
            let unopened = plan.connections - openable
            stats.counters.connectAttempts += unopened
            stats.counters.connectsFailed += unopened
            stats.counters.errors[.descriptorsExhausted, default: 0] += unopened
            stats.firstErrors[.descriptorsExhausted] = stats.firstErrors[.descriptorsExhausted] ?? SettingText(
                "\(unopened) of the \(plan.connections) connections not opened: the file-descriptor limit is \(descriptorLimit), "
                    + "\(inUse) are in use and \(Self.descriptorReserve) are kept for the process; \(SystemLimits.descriptorFix(connections: plan.connections))")
        }
        let examples = Dictionary(uniqueKeysWithValues: stats.firstErrors.map { ($0.key.rawValue, $0.value.rendered(plan.naming)) })
        let measuredStart = context.warmupNanos
        let measuredEnd = max(measuredStart + 1, min(sendingEnded, context.stopNanos))
        var result = report(
            counters: stats.counters, corrected: stats.corrected, uncorrected: stats.uncorrected, examples: examples,
            context: context, address: address, startedAt: startedAt.addingTimeInterval(Double(context.warmupNanos) / 1e9),
            elapsedNanos: measuredEnd - measuredStart, warnings: warnings, timeline: timeline
        )
        result.setHandshakes(stats.handshakes)
        result.setTunnels(stats.tunnels)
        result.proxy = plan.connectOptions.proxy?.proxy(for: plan.endpoint)?.description
        result.interrupted = stop.isRequested
        result.addCorrelation(plan: plan, counters: stats.counters, labels: stats.labels)
        return result
    }

    /// The address the connections to `endpoint` use (through a proxy: the proxy's).
    private static func targetAddress(_ endpoint: Endpoint, plan: LoadPlan, warnings: inout [SettingText]) async throws -> SocketAddress {
        let proxy = plan.connectOptions.proxy?.proxy(for: endpoint)
        let host = proxy?.host ?? endpoint.host
        let port = proxy?.port ?? endpoint.port
        switch endpoint.transport {
        case .unix:
            do {
                return try SocketAddress(unixDomainSocketPath: endpoint.path)
            } catch {
                throw SocketEngineError(.invalidEndpoint, "invalid unix socket path '\(endpoint.path)': \(error)")
            }
        case .udp:
            let addresses = try await plan.connectOptions.resolver.resolve(host: endpoint.host, port: endpoint.port, datagram: true)
            guard let first = addresses.first(where: { plan.connectOptions.family.allows($0) }) else {
                throw SocketEngineError(.resolutionFailed, "'\(endpoint.host)' has no \(plan.connectOptions.family.name) address")
            }
            return first
        default:
            // One address: nothing to choose, no probe connection (the server would see it).
            if let addresses = try? await plan.connectOptions.resolver.resolve(host: host, port: port, datagram: false) {
                let allowed = addresses.filter { plan.connectOptions.family.allows($0) }
                if allowed.count == 1 { return allowed[0] }
            }
            do {
                let (connection, report) = try await Connector(endpoint: endpoint, options: plan.connectOptions).connect()
                await connection.close()
                if let connected = report.connectedAddress { return connected }
                throw SocketEngineError(.connectFailed, "\(endpoint): connected to no address")
            } catch let error as SocketEngineError where error.code == .resolutionFailed || error.isUsageError {
                throw error
            } catch {
                // Nothing answers yet: the run counts the failures. Use the first address.
                let addresses = try await plan.connectOptions.resolver.resolve(host: host, port: port, datagram: false)
                guard let first = addresses.first(where: { plan.connectOptions.family.allows($0) }) else { throw error }
                warnings.append("probe connection failed: \((error as? SocketEngineError)?.message ?? "\(error)")")
                return first
            }
        }
    }

    /// How a slot's connection is opened, on its shard's loop: through the engine's
    /// ``ChannelOpener`` (NIO's default buffers), with this run's ``LoadConnectionHandler`` on
    /// the channel (over ws:// and wss:// above the WebSocket layer, once upgraded). tls://:
    /// established once its handshake is done (the handler waits for it). A refused or failed
    /// upgrade or handshake is a failed connect.
    static func connector(plan: LoadPlan, context: RunContext, opener: ChannelOpener) -> @Sendable (Int, LoadShard) -> Void {
        let datagram = plan.endpoint.transport == .udp
        return { slot, shard in
            shard.attempting(slot: slot)
            guard let address = context.address(slot: slot) else { return }
            let hooks = ChannelOpener.Hooks(
                install: { channel, installing in
                    let handler = LoadConnectionHandler(
                        slot: slot, shard: shard, datagram: datagram, messages: installing.webSocket != nil,
                        awaitsHandshake: installing.handshake != nil)
                    installing.handshake?.assumeIsolated().whenSuccess { _ in handler.handshakeCompleted() }
                    if datagram { try channel.pipeline.syncOperations.addHandler(DatagramUnwrapHandler()) }
                    try channel.pipeline.syncOperations.addHandler(handler)
                },
                secured: { _, handshake in
                    handshake.whenSuccess { report in shard.stats.recordHandshake(report.handshakeDuration.nanosecondsClamped) }
                },
                tunnelled: { _, tunnel in
                    tunnel.whenSuccess { report in shard.stats.recordTunnel(report.duration.nanosecondsClamped) }
                }
            )
            opener.open(to: address, endpoint: plan.endpoints[slot % plan.endpoints.count], on: shard.loop, hooks: hooks)
                .whenFailure { error in shard.connectFailed(slot: slot, error: error) }
        }
    }

    static func sum(_ workers: [any LoadWorker], _ value: (any LoadWorker) async throws -> Int) async throws -> Int {
        var total = 0
        for worker in workers { total += try await value(worker) }
        return total
    }

    // MARK: Report

    private func report(
        counters: LoadCounters, corrected: Histogram<UInt64>, uncorrected: Histogram<UInt64>, examples: [String: String],
        context: RunContext, address: SocketAddress?, startedAt: Date, elapsedNanos: Int64, warnings: [SettingText],
        timeline: [LoadReport.Interval]
    ) -> LoadReport {
        let seconds = Double(max(1, elapsedNanos)) / 1e9
        var intended: Int?
        if let requests = plan.requests {
            intended = requests
        } else if let schedule = context.schedule {
            intended = schedule.messagesDue(before: context.stopNanos) - schedule.messagesDue(before: context.warmupNanos)
        }
        var counters = counters
        if let intended { counters.unsent = max(0, intended - counters.messagesSent) }
        let offered: Double? = context.schedule != nil ? intended.map { Double($0) / seconds } : nil
        var warnings = warnings
        let peak = context.connectionsOpen.peak
        if peak < plan.connections {
            warnings.append("could not open the \(plan.connections == 1 ? "connection" : "\(plan.connections) connections") asked for: at most \(peak) were open at once")
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var report = LoadReport(
            target: Self.describe(plan.endpoints),
            address: address.map { first in
                let text = first.pathname ?? first.displayString
                return context.addresses.count > 1 ? "\(text) and \(context.addresses.count - 1) more" : text
            },
            transport: plan.endpoint.transport.rawValue,
            startedAt: formatter.string(from: startedAt),
            config: LoadReport.Config(
                connections: plan.connections, connectRate: plan.connectRate, durationSeconds: plan.duration.map { $0.secondsDouble },
                requests: plan.requests, rate: plan.rate, stages: plan.stages.isEmpty ? nil : Self.describe(plan.stages),
                pipeline: context.pipeline, threads: plan.resolvedIO == .threads ? plan.ioThreadCount : plan.threads, warmupSeconds: plan.warmup.secondsDouble,
                framing: plan.framing?.description, messageBytes: context.template(slot: 0).size(sequence: 1, connection: 1),
                timeoutSeconds: plan.replyTimeout.secondsDouble, io: plan.resolvedIO.rawValue),
            elapsedSeconds: (seconds * 1e6).rounded() / 1e6,
            connections: LoadReport.Connections(
                requested: plan.connections, attempted: counters.connectAttempts, established: counters.connectsSucceeded,
                failed: counters.connectsFailed, lost: counters.connectionsLost, peakOpen: peak),
            messages: LoadReport.Messages(
                intended: intended, sent: counters.messagesSent, received: counters.messagesReceived, timedOut: counters.timedOut,
                lost: counters.lost, unsent: counters.unsent, warmupSent: counters.warmupSent),
            bytes: LoadReport.Bytes(sent: counters.bytesSent, received: counters.bytesReceived),
            throughput: LoadReport.Throughput(counters, seconds: seconds, offered: offered),
            latency: LoadReport.Latency?.none, histograms: LoadReport.Histograms?.none,
            errors: Dictionary(uniqueKeysWithValues: counters.errors.map { ($0.key.rawValue, $0.value) }),
            errorExamples: examples, timeline: timeline, warnings: warnings,
            peakRSSBytes: SystemLimits.peakResidentBytes())
        report.setLatency(corrected: corrected, uncorrected: uncorrected)
        report.http = plan.isHTTP ? LoadReport.HTTP(counters.http ?? HTTPStatusCounts()) : counters.http.map(LoadReport.HTTP.init)
        return report
    }
}
