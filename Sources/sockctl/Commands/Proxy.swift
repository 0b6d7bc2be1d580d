import ArgumentParser
import ProxyProtocol
import MetricsExport
import NIOCore
import Recording
import SocketEngine
import Synchronization

import Glibc

struct Proxy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Relay clients to a server, showing, recording and breaking the traffic.",
        discussion: """
            Listens on LISTEN (loopback unless given a host) and gives every client its own \
            connection to UPSTREAM, like socat's fork. With socks5://[HOST:]PORT or \
            http-connect://[HOST:]PORT as LISTEN and no UPSTREAM, sockctl is a SOCKS5 or HTTP \
            CONNECT proxy: each client's destination comes from its request (SOCKS5 CONNECT to \
            an IPv4, IPv6 or name destination; CONNECT host:port answered HTTP/1.1 200 \
            Connection established), checked against --allow-destination/--deny-destination \
            (refused with SOCKS5 reply 0x02 or HTTP 403; an unreachable destination is 0x04 or \
            0x05, HTTP 502; a request not whole within --handshake-timeout is closed), and \
            everything below applies to the tunnel's bytes — the live view, --record (each \
            tunnel recorded as the connection to its destination, without the handshake), \
            faults, the control socket, metrics. Both sides take every endpoint kind: \
            tcp, udp, unix, tls (terminated with --cert/--key; originated with the upstream's \
            certificate verified unless --upstream-insecure; --keylog FILE, or SSLKEYLOGFILE, logs \
            the secrets of both sides), ws and wss. Between a byte \
            stream and a WebSocket or UDP side each message becomes one framed message: with \
            --framing line, ws://:8080 → tcp://127.0.0.1:7000 turns every WebSocket message \
            into a line and every line into a message. A UDP listener keeps one flow per \
            client address (--max-clients counts flows), closed after --udp-idle-timeout without traffic. \
            Stream clients' places are kept as for listen: --handshake-timeout, \
            --idle-timeout, --min-rate and --rate-window (see sockctl listen --help).

            Each direction ends on its own: a FIN (or WebSocket close) is passed on and the \
            other direction goes on; a reset on one side resets the other. A slow reader \
            on either side stops the other side being read, so memory stays bounded.

            The client log (connect, upstream, disconnect with byte counts) goes to stderr \
            (-q: only warnings, errors and the summary); --hexdump prints every chunk on \
            stderr in the tcpdump -X layout with its time, client and direction (> towards the \
            upstream, < back to the client), as every command does; --print-messages prints \
            each message on stdout (JSON pretty-printed); --json (or --json-log) prints one \
            JSON object per event on stdout, the summary last, and moves the messages to \
            stderr. HTTP messages (--framing http, or an http:// side with --print-messages \
            or --json) show as their start line, headers and body, de-chunked; the answer to \
            a HEAD request is known to have no body. --record FILE.pcap writes every client's session to one pcap file that \
            tcpdump and tshark open and replay replays.

            Faults (--fault, repeatable; add and remove them while running through \
            --control): latency=50ms[,jitter=20ms], bandwidth=64KiB/s, \
            slice=16[,delay=10ms], stall=5s,every=64KiB|100msg|30s, timeout[=10s], \
            reset-after=10KiB|5msg|3s, limit=1MiB, drop=2% (messages: UDP, WebSocket or \
            --framing), close-after-messages=N. Each takes dir=up|down|both (default both) \
            and p=50% (the share of clients it applies to). With --framing, counts and \
            drops are of whole messages.

            The control socket takes one command per line: add SPEC, remove N, list, clear; \
            each is answered with a line starting ok or error:.

            Ctrl-C (SIGINT) or SIGTERM closes everything and prints a summary.

            Examples:
              sockctl proxy :8000 127.0.0.1:7000 --hexdump
              sockctl proxy :8000 127.0.0.1:7000 --json -q | jq -c 'select(.event == "disconnect")'
              sockctl proxy :8000 tls://api.example.com:443 --framing crlf --print-messages
              sockctl proxy ws://:8080/ 127.0.0.1:7000 --framing line
              sockctl proxy :8000 http://127.0.0.1:8080 --print-messages
              sockctl proxy udp://:5353 udp://127.0.0.1:53 --fault drop=10%
              sockctl proxy :8000 127.0.0.1:7000 --fault latency=100ms,dir=down --fault reset-after=30s,p=20%
              sockctl proxy :8000 127.0.0.1:7000 --control unix:/tmp/proxy.ctl --record session.pcap
              sockctl send unix:/tmp/proxy.ctl 'add timeout' --framing line
              sockctl proxy :8000 127.0.0.1:7000 --metrics-listen 9464   # Prometheus: clients, bytes each way, resets
              sockctl proxy socks5://127.0.0.1:1080 --record any.pcap --deny-destination 10.0.0.0/8
              sockctl proxy http-connect://127.0.0.1:8080 --allow-destination '*:443' --fault latency=200ms
            """
    )

    @Argument(
        help: ArgumentHelp("Where clients connect: PORT, :PORT, HOST:PORT, tcp://, udp://, unix:/path, tls://, ws://[HOST]:PORT/path, wss://; or socks5://[HOST:]PORT, http-connect://[HOST:]PORT to be a SOCKS5 or HTTP CONNECT proxy (no UPSTREAM).", valueName: "listen"),
        transform: ProxyListen.parse
    )
    var listenArgument: ProxyListen

    @Argument(
        help: ArgumentHelp("Where each client's traffic goes: HOST:PORT, tcp://, udp://, unix:/path, tls://, ws://, wss://. None for a socks5:// or http-connect:// LISTEN.", valueName: "upstream"),
        transform: ArgumentValues.clientEndpoint
    )
    var upstreamArgument: Endpoint?

    /// Where clients connect.
    var listen: Endpoint { listenArgument.endpoint }

    @OptionGroup var admission: AdmissionOptions

    @Option(name: .long, help: ArgumentHelp("Serve Prometheus metrics at http://ADDR/metrics, e.g. 9464, 0.0.0.0:9464 or :0 (a bare port: loopback).", valueName: "addr"),
            transform: { try MetricsListenAddress(parsing: $0) })
    var metricsListen: MetricsListenAddress?

    @Option(name: .long, help: ArgumentHelp("Give up on an upstream connection (resolving, connecting, TLS, WebSocket upgrade) after this long; the client is closed.", valueName: "dur"))
    var upstreamConnectTimeout: Duration = .seconds(10)

    @Option(name: .long, help: ArgumentHelp("Close a UDP flow after this long without a datagram either way.", valueName: "dur"))
    var udpIdleTimeout: Duration = .seconds(60)

    @Option(name: .long, help: ArgumentHelp("Inject this fault (repeatable); see the discussion for the kinds.", valueName: "spec"),
            transform: { try RelayFault(parsing: $0) })
    var fault: [RelayFault] = []

    @Option(name: .long, help: ArgumentHelp("Seed the chance of every fault, so a run can be repeated exactly.", valueName: "n"))
    var faultSeed: UInt64?

    @Option(name: .long, help: ArgumentHelp("Take fault commands (add, remove, list, clear) on this Unix socket while running.", valueName: "unix:path"))
    var control: String?

    @Flag(name: .long, help: "Print every message on stdout (needs --framing unless a side is ws, wss, udp or http: HTTP messages show as start line, headers and body).")
    var printMessages = false

    @Flag(name: [.customLong("json"), .customLong("json-log")], help: "Write the result as JSON: every event — clients, messages, chunks, faults — one object per line on stdout (human output on stderr).")
    var jsonLog = false

    @OptionGroup var recording: RecordOptions<ProxyRecording>

    @Option(name: .long, help: ArgumentHelp("Begin each upstream connection with a PROXY protocol header carrying the client's address (as haproxy's send-proxy and send-proxy-v2), before TLS or a WebSocket upgrade. Stream upstreams only.", valueName: "v1|v2"))
    var sendProxyProtocol: ProxyProtocolHeader.Version?

    @OptionGroup(title: "Framing") var framing: FramingOptions
    @Flag(name: .shortAndLong, help: "Print more on stderr: also upstream connections, directions ending and every fault acting, with timestamps.")
    var verbose = false

    @Flag(name: .long, help: "Print all traffic in the tcpdump -X layout (hex and ASCII), with time, client number and direction, on stderr.")
    var hexdump = false
    @Flag(name: .shortAndLong, help: "No per-client log lines (connected, disconnected, refused); warnings, errors and the summary still.")
    var quiet = false
    @OptionGroup(title: "Terminal") var terminal: TerminalOptions
    @OptionGroup(title: "TLS towards clients (tls:// and wss:// listeners)") var tls: ListenTLSOptions
    @OptionGroup(title: "TLS towards the upstream (tls:// and wss:// upstreams)") var upstreamTLS: UpstreamTLSOptions
    @OptionGroup(title: "Proxy towards the upstream") var upstreamProxy: UpstreamProxyOptions
    @OptionGroup(title: "SOCKS5 and HTTP CONNECT (socks5:// and http-connect:// listeners)") var tunnelServer: TunnelServerOptions

    func validate() throws {
        _ = try validating { try makeConfiguration() }
    }

    func makeConfiguration(diagnostics: Diagnostics? = nil) throws -> RelayConfiguration {
        let server = try tunnelServer.server(kind: listenArgument.tunnel)
        let upstream = try upstream(serving: server)
        var configuration = RelayConfiguration(listen: listen, upstream: upstream)
        configuration.tunnelServer = server
        // An http:// side speaks HTTP: when messages are shown or counted, they are cut as HTTP
        // unless --framing says otherwise (a plain relay stays a byte relay, with no size limit).
        let speaksHTTP = [listen, upstream].contains { $0.transport.isHTTP }
        let wantsMessages = printMessages || jsonLog || fault.contains { $0.needsMessages }
        let messageFraming = framing.framing == .raw && speaksHTTP && wantsMessages ? Framing.http : framing.framing
        configuration.framing = messageFraming
        configuration.maximumFrameSize = try framing.maximumFrameSize()
        try admission.apply(to: &configuration.listenOptions, endpoint: listen)
        configuration.connectOptions.connectTimeout = try checkedPositive(upstreamConnectTimeout, "--upstream-connect-timeout")
        configuration.datagramIdleTimeout = try checkedPositive(udpIdleTimeout, "--udp-idle-timeout")
        // One key log for both sides: the clients' TLS and the upstream's.
        let keyLog = try tls.keyLog.writer(secured: listen.transport.isSecured || upstream.transport.isSecured, diagnostics: diagnostics)
        configuration.listenOptions.secureTransport = try tls.layer(for: listen, keyLog: keyLog)
        configuration.connectOptions.secureTransport = try upstreamTLS.layer(for: upstream, keyLog: keyLog)
        configuration.connectOptions.proxy = try upstreamProxy.route(for: upstream, diagnostics: diagnostics)
        let carriesMessages = [listen, upstream].contains { $0.transport.isMessageOriented }
        if printMessages && !carriesMessages && !messageFraming.delimitsMessages {
            throw UsageError("--print-messages needs --framing (or a ws, wss or udp side)")
        }
        for fault in fault where fault.needsMessages && !carriesMessages && !messageFraming.delimitsMessages {
            throw UsageError("--fault \(fault) needs messages: --framing, or a ws, wss or udp side")
        }
        if quiet && verbose { throw UsageError("-q and -v exclude each other") }
        if let sendProxyProtocol {
            if upstream.transport == .udp { throw UsageError("--send-proxy-protocol needs a stream upstream (tcp, tls, unix, ws, wss, http, https): a PROXY protocol header starts a connection") }
            configuration.sendsProxyProtocol = sendProxyProtocol
        }
        configuration.faults = fault
        configuration.faultSeed = faultSeed
        configuration.faultsCanChange = control != nil
        configuration.reportsData = hexdump || jsonLog
        configuration.reportsMessages = printMessages || jsonLog
        if let control {
            guard control.hasPrefix("unix:"), control.count > 5 else {
                throw UsageError("invalid --control '\(control)' (expected unix:PATH, e.g. unix:/tmp/proxy.ctl)")
            }
        }
        try recording.validate(transport: listen.transport)
        return configuration
    }

    /// UPSTREAM, required for a relay and refused for a proxy server (whose configuration's
    /// upstream, never dialled, is a plain tcp endpoint).
    private func upstream(serving server: TunnelServer?) throws -> Endpoint {
        switch (server, upstreamArgument) {
        case (nil, let upstream?):
            return upstream
        case (nil, nil):
            throw UsageError("missing <upstream> (expected an endpoint such as 127.0.0.1:7000), or a socks5:// or http-connect:// <listen> whose clients name their destination")
        case (let server?, let upstream?):
            throw UsageError("a \(server.kind.rawValue):// LISTEN takes each client's destination from its request: no UPSTREAM ('\(upstream)')")
        case (_?, nil):
            return Endpoint(transport: .tcp)
        }
    }

    func run() async throws {
        let diagnostics = Diagnostics(command: "proxy", verbose: verbose)
        var configuration = try makeConfiguration(diagnostics: diagnostics)
        let descriptors = DescriptorLimit.raiseToHardLimit()
        // One loop for the process's plain byte-stream clients (none: they stay on the event loop),
        // ended with the relay on every way out: its clients closed, its thread joined.
        let epollLoop = EpollRelayLoop()
        configuration.epollLoop = epollLoop
        defer { epollLoop?.shutdown() }
        // A client costs its socket and its upstream's; the fast path's pipes are lent only while
        // bytes wait in them, from at most a quarter of the limit.
        if let clients = configuration.listenOptions.maximumClients, 2 * clients + 64 > descriptors {
            diagnostics.warning("--max-clients \(clients) needs \(2 * clients) descriptors, above the limit \(descriptors): raise it with `ulimit -n`")
        }
        let recorder = try recording.recorder(diagnostics: diagnostics)
        if configuration.tunnelServer == nil {
            configuration.listenOptions.recorder = recorder?.hook
        } else {
            // A tunnel is recorded as sockctl's connection to the destination: the relayed
            // bytes between the real addresses, without the SOCKS or CONNECT handshake.
            configuration.connectOptions.recorder = recorder?.hook
        }
        if let control { try OutputFile.checkSocketPath(String(control.dropFirst(5)), option: "--control", diagnostics: diagnostics) }
        let renderer = ProxyEventRenderer(
            diagnostics: diagnostics, hexdump: hexdump, printMessages: printMessages, jsonLog: jsonLog, quiet: quiet,
            framing: configuration.framing
        )
        let service = RelayService(configuration: configuration) { renderer.render($0) }

        let signals = SignalWatcher.orderlyShutdown(diagnostics) { service.stop() }
        let bound: [SocketAddress]
        do {
            bound = try await service.bind()
        } catch {
            throw diagnostics.fail(SocketEngineError.wrapping(error, context: "listen"))
        }
        var controlServer: RelayControl?
        if let control {
            do {
                controlServer = try await RelayControl.bind(path: String(control.dropFirst(5)), faults: service.faults)
            } catch {
                service.stop()
                throw diagnostics.fail(SocketEngineError.wrapping(error, context: "--control"))
            }
        }
        let controlTask = controlServer.map { server in Task { await server.run() } }
        let names = bound.map(\.displayString).joined(separator: ", ")
        if let epollLoop {
            let how = epollLoop.pipeSize.map { "splice(2) through \(Self.size($0)) pipes lent while bytes wait in them" } ?? "read and send (no pipe could be made)"
            diagnostics.event("fast path for plain tcp/unix clients nothing watches: \(how)")
        }
        if let server = configuration.tunnelServer {
            diagnostics.note("listening on \(names) (\(server.kind.rawValue)), each client's destination from its \(server.kind.name) request")
        } else {
            diagnostics.note("listening on \(names) (\(listen.transport.rawValue)), relaying to \(configuration.upstream)")
        }
        if let controlServer { diagnostics.note("control socket on unix:\(controlServer.path)") }
        let metrics: ServiceMetrics<RelaySummary>? = if let metricsListen { try await RelayMetrics.start(metricsListen, service: service) { diagnostics.log($0.logLine) } } else { nil }
        if let metrics { diagnostics.note("metrics on \(metrics.url)") }
        for entry in service.faults.entries { diagnostics.note("fault \(entry.id): \(entry.fault)") }
        if bound.contains(where: { !$0.isLoopback && listen.transport != .unix }) {
            diagnostics.warning("listening beyond loopback: anyone who can reach this host can connect")
        }

        let summary = await service.run()
        if let statistics = epollLoop?.statistics {
            diagnostics.event("fast path: \(plural(statistics.spliced, "client")) spliced, \(statistics.copied) copied")
        }
        metrics?.finish(summary)
        signals.cancel()
        await controlServer?.close()
        await controlTask?.value
        recording.finish(recorder, diagnostics: diagnostics)
        renderer.summary(summary)
        await metrics?.close()
    }

    /// A pipe's capacity as the fast-path line words it: `256 KiB`.
    private static func size(_ bytes: Int) -> String {
        bytes % 1024 == 0 ? "\(bytes / 1024) KiB" : "\(bytes) bytes"
    }
}
