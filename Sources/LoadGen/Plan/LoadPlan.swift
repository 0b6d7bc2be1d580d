import Foundation
import NIOCore
import SocketEngine

/// What a load test does: the target, how many connections, what to send, how fast, and when
/// to stop. Built by the CLI from its flags; validated by ``validate()``.
///
/// Two ways to pace messages:
/// - **Closed loop** (``rate`` nil, no stages): each connection keeps ``pipeline`` messages
///   unanswered and sends the next one when a reply arrives — as fast as the server allows.
/// - **Open loop** (``rate`` or ``stages``): messages are due at fixed times (``RateSchedule``)
///   whatever the server does; latency is measured from the time a message was *due*, so a
///   server that stalls shows the stall in the percentiles (coordinated omission corrected).
///   ``pipeline`` caps unanswered messages per connection (default: no cap but
///   ``maximumPipeline``); a message held back by the cap is late, and that lateness counts.
///
/// Without ``framing`` nothing is read as replies: the run measures send throughput only.
public struct LoadPlan: Sendable {
    /// Where the connections go: connection `k` to `endpoints[k % endpoints.count]`.
    public var endpoints: [Endpoint]
    /// The first (often the only) target.
    public var endpoint: Endpoint { endpoints[0] }
    /// How each connection connects: timeout, source address, interface, the TLS layer
    /// (needed for `tls://` and `wss://`), WebSocket options.
    public var connectOptions: ConnectOptions
    /// The wall clock, read once per run for the report's start time (a test's fixed date);
    /// everything that waits goes by ``connectOptions``' clock.
    package var wallClock: @Sendable () -> Date = Date.init
    /// Connections to keep open (default 10, at most 1,000,000); a lost one is reopened.
    public var connections = 10
    /// New connections per second while ramping up (nil: as fast as they open).
    public var connectRate: Double? = 1000
    /// How long to send after the warm-up (nil with ``requests``: until they are sent).
    public var duration: Duration? = .seconds(10)
    /// Total messages to send (across connections), then stop.
    public var requests: Int?
    /// Total messages per second (open loop).
    public var rate: Double?
    /// Rate stages (open loop); start from ``rate`` or 0.
    public var stages: [RateSchedule.Stage] = []
    /// What each connection sends (``MessageTemplate``), with its placeholders filled in.
    /// `http://` and `https://` targets send ``http`` instead.
    public var message: MessageTemplate
    /// `http://` and `https://` targets: the request each connection sends to its target
    /// (method, headers, body); nil: `GET` without a body.
    public var http: HTTPRequestTemplate?
    /// Reply framing; nil: send-only.
    public var framing: Framing?
    /// The largest reply accepted, in bytes (default 16 MiB); a longer one is a `framing` error
    /// and its connection is reopened.
    public var maximumFrameSize = FrameDecoder.defaultMaximumFrameSize
    /// Unanswered messages per connection (nil: 1 closed loop, ``maximumPipeline`` open loop).
    public var pipeline: Int?
    /// Event-loop threads.
    public var threads = System.coreCount
    /// How connections do their I/O (``IOMode``).
    public var io: IOMode = .auto
    /// Sent and answered but not measured, before the measured part of the run.
    public var warmup: Duration = .zero
    /// How long a message may wait for its reply; then its connection is dropped and reopened.
    public var replyTimeout: Duration = Self.defaultReplyTimeout
    /// The reply timeout unless one is given: 5 s.
    public static let defaultReplyTimeout: Duration = .seconds(5)
    /// How long to wait for outstanding replies after sending stops.
    public var drainTimeout: Duration = .seconds(5)
    /// `--correlate`: a reply answers the unanswered message with the same key (found by this
    /// rule in both), not the oldest; replies with no such message are counted as unmatched.
    public var correlation: MessageField?
    /// `--label`: the report splits counts and latency by this value of each request.
    public var label: MessageField?
    /// `--shard K/N`: this run is one of N copies that together make the test (set by
    /// ``sharded(_:connections:)``, which splits the figures); nil: the whole test.
    public internal(set) var shard: Shard?
    /// The whole test's number (from 0) of this shard's first connection: its connections are
    /// the whole's from here on, and `{{conn}}` counts from here (0 unless sharded).
    package internal(set) var firstConnection = 0
    /// How the report words the settings its texts name (an error's remedy, say): each key's
    /// plain name unless the caller has its own words for them, as the CLI has its flags.
    public var naming: @Sendable (SettingKey) -> String = { $0.plainName }

    /// The largest pipeline accepted (unanswered messages per connection); the report calls it unlimited.
    public static let maximumPipeline = LoadReport.Config.unlimitedPipeline

    /// A plan against one target.
    public init(endpoint: Endpoint, message: MessageTemplate) {
        endpoints = [endpoint]
        self.message = message
        connectOptions = ConnectOptions()
    }

    /// A plan whose connections are spread over `endpoints` in turn; refuses an empty list.
    public init(endpoints: [Endpoint], message: MessageTemplate) throws(LoadGenError) {
        guard let first = endpoints.first else { throw LoadGenError(.invalidPlan, "a load test needs a target") }
        self.init(endpoint: first, message: message)
        self.endpoints = endpoints
    }

    package var isOpenLoop: Bool { rate != nil || !stages.isEmpty }

    /// The targets are `http://` or `https://`: requests are HTTP/1.1 messages, responses cut
    /// and counted as such.
    package var isHTTP: Bool { endpoint.transport.isHTTP }

    /// What connection `k` sends, one template per target (`k % endpoints.count`): the HTTP
    /// request to each target, or ``message`` for every one.
    package func messageTemplates() throws(LoadGenError) -> [MessageTemplate] {
        guard isHTTP else { return [message] }
        let request = http ?? HTTPRequestTemplate()
        var templates: [MessageTemplate] = []
        for endpoint in endpoints { templates.append(try request.template(for: endpoint)) }
        return templates
    }

    /// How connections do their I/O.
    public enum IOMode: String, Sendable, CaseIterable {
        /// `threads` when the run allows it, waits for replies, and either has fewer connections
        /// than the machine has cores (a core stays free for everything else) or opens plain
        /// connections (tcp://, http://, unix:: no handshake to wait for); else `events`.
        case auto
        /// NIO event loops (``threads`` of them), each serving many connections.
        case events
        /// Plain system calls (``BlockingSocket``) on ``threads`` threads, each waiting on its
        /// connections with epoll; with fewer connections than cores, a thread per connection
        /// that polls for a reply for a few microseconds before it sleeps, so a reply is seen
        /// without a wake-up. Closed loop over tcp://, http://, ws://, wss:// or unix: (send-only: tcp://
        /// and unix: only).
        case threads
    }

    /// Why this run cannot use `--io threads` (nil: it can).
    package var threadIOObstacle: SettingText? {
        guard [.tcp, .unix, .ws, .wss, .http].contains(endpoint.transport) else {
            return "it works over tcp://, ws://, wss://, http:// and unix: only (tls:// and https:// run on event loops)"
        }
        if framing == nil && ![.tcp, .unix].contains(endpoint.transport) {
            return "a send-only run (no \(.framing)) works over tcp:// and unix: only"
        }
        if connectOptions.webSocket.pingInterval != nil { return "\(.pingInterval) runs on event loops" }
        if isOpenLoop { return "it runs closed loop only (no \(.rate) or \(.stages))" }
        return nil
    }

    /// The I/O this run uses: ``io`` with `auto` decided.
    package var resolvedIO: IOMode {
        switch io {
        case .auto:
            // Send-only, the event loops write the prepared runs with less CPU (bench/sendonly.sh).
            guard threadIOObstacle == nil, framing != nil || isHTTP else { return .events }
            // A TLS handshake or an upgrade is waited for on the thread: fine for a few connections.
            let plain = endpoints.allSatisfy { !BlockingConnection.hasHandshake($0, options: connectOptions) }
            return plain || connections < System.coreCount ? .threads : .events
        case .events, .threads: return io
        }
    }

    /// `--io threads`: a connection polls for its reply before sleeping when the connections
    /// leave a core free.
    package var threadsSpin: Bool { connections < System.coreCount }

    /// `--io threads`: the threads that carry the connections — one each when they leave a core
    /// free (each polls for its replies), else ``threads`` of them, each waiting on its share.
    package var ioThreadCount: Int { threadsSpin ? connections : max(1, min(connections, threads)) }

    package var effectivePipeline: Int {
        pipeline ?? (isOpenLoop ? Self.maximumPipeline : 1)
    }

    /// The schedule of an open-loop run, warm-up included: the warm-up runs at the starting
    /// rate (`--rate`; with stages, the first stage's starting rate), then the measured part.
    package var schedule: RateSchedule? {
        wholeSchedule.map { schedule in shard.map(schedule.sliced) ?? schedule }
    }

    /// The schedule of the whole test, of which a shard sends its messages.
    private var wholeSchedule: RateSchedule? {
        guard isOpenLoop else { return nil }
        let start = rate ?? 0
        if let first = stages.first {
            let warm = warmup > .zero ? [RateSchedule.Stage(duration: warmup, startRate: first.startRate, endRate: first.startRate)] : []
            return RateSchedule(stages: warm + stages)
        }
        guard let duration else { return RateSchedule(rate: start, duration: nil) }
        return RateSchedule(rate: start, duration: warmup + duration)
    }

    /// When sending stops, from the start of the run (nil: when ``requests`` are sent).
    package var sendingDuration: Duration? {
        if !stages.isEmpty { return warmup + stages.reduce(Duration.zero) { $0 + $1.duration } }
        guard let duration else { return nil }
        return warmup + duration
    }

    /// Throws ``LoadGenError/Code/invalidPlan``, naming the flag at fault, when the plan cannot run.
    public func validate() throws(LoadGenError) {
        guard connections >= 1 else { throw LoadGenError(.invalidPlan, "\(.connections) must be at least 1") }
        guard connections <= 1_000_000 else { throw LoadGenError(.invalidPlan, "\(.connections) is at most 1000000") }
        if let connectRate, !(connectRate > 0) { throw LoadGenError(.invalidPlan, "\(.connectRate) must be positive") }
        if let rate, !(rate > 0 && rate.isFinite) { throw LoadGenError(.invalidPlan, "\(.rate) must be a positive number of messages per second") }
        if duration == nil && requests == nil && stages.isEmpty { throw LoadGenError(.invalidPlan, "give \(.duration), \(.requests) or \(.stages)") }
        if let requests, requests < 1 { throw LoadGenError(.invalidPlan, "\(.requests) must be at least 1") }
        if requests != nil && warmup > .zero { throw LoadGenError(.invalidPlan, "\(.warmup) and \(.requests) exclude each other (a warm-up is a time)") }
        if let pipeline, !(1...Self.maximumPipeline).contains(pipeline) {
            throw LoadGenError(.invalidPlan, "\(.pipeline) must be from 1 to \(Self.maximumPipeline)")
        }
        guard threads >= 1 && threads <= 256 else { throw LoadGenError(.invalidPlan, "\(.threads) must be from 1 to 256") }
        if io == .threads, let obstacle = threadIOObstacle { throw LoadGenError(.invalidPlan, "\(.io) threads: \(obstacle)") }
        if framing == nil && !isHTTP && message.isConstant && message.size(sequence: 1, connection: 1) == 0 {
            throw LoadGenError(.invalidPlan, "a send-only run of empty messages sends nothing: give \(.message) or \(.framing)")
        }
        if endpoint.transport == .udp && framing == nil && rate == nil && stages.isEmpty {
            // Unpaced UDP without replies would only measure how fast the kernel drops datagrams.
            throw LoadGenError(.invalidPlan, "unthrottled send-only UDP has nothing to measure: give \(.rate) or \(.framing)")
        }
        switch endpoint.transport {
        case .tcp, .udp, .unix, .ws, .http: break
        case .tls, .wss, .https:
            if connectOptions.secureTransport == nil { throw LoadGenError(.invalidPlan, "\(endpoint.transport.rawValue):// needs a TLS layer") }
        }
        if let other = endpoints.first(where: { $0.transport != endpoint.transport }) {
            throw LoadGenError(.invalidPlan, "all targets must use one transport: \(endpoint) is \(endpoint.transport.rawValue), \(other) \(other.transport.rawValue)")
        }
        if endpoints.count > connections {
            throw LoadGenError(.invalidPlan, "\(endpoints.count) targets need at least as many \(.connections)")
        }
        if isHTTP {
            guard framing == .http else {
                throw LoadGenError(.invalidPlan, "HTTP targets are framed as HTTP: leave out \(.framing) (or give http)")
            }
            if correlation != nil {
                throw LoadGenError(.invalidPlan, "\(.correlate) does not apply to HTTP targets: responses answer requests in order")
            }
            _ = try messageTemplates()
        }
        try validateCorrelation()
    }
}
