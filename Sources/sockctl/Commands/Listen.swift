import ArgumentParser
import Dispatch
import MetricsExport
import NIOCore
import Recording
import SocketEngine
import Synchronization

import Glibc

struct Listen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Accept clients and print, echo, discard, broadcast or answer what they send.",
        discussion: """
            Binds to loopback (127.0.0.1 and ::1) unless given a host: write \
            0.0.0.0:PORT or [::]:PORT to accept clients from the network. Port 0 asks the \
            kernel for a free port. The bound address is printed on stderr, with one line \
            per client connecting and disconnecting (-q: none; warnings, errors and the \
            summary still); Ctrl-C (SIGINT) or SIGTERM closes everything and prints a summary.

            Without --keep-open the listener serves one client and ends when it leaves, like \
            nc -l. By default what clients send goes to stdout and stdin goes to every \
            connected client.

            --respond FILE answers every message with the file's content (for delimiter \
            framings a single trailing newline in the file is dropped) — a mock server. \
            --delay applies to every answer, counted from the message's arrival.

            --record FILE.pcap writes every client's session to one pcap file (made-up \
            Ethernet/IP/TCP headers, UDP for udp://, real payload and times; over tls:// \
            and wss:// the plaintext, over ws:// and wss:// one segment per message), for \
            tcpdump, Wireshark, capture -r and replay.

            Over http://[HOST]:PORT (https:// with the TLS options) every request gets \
            one response, in order, on a kept-alive connection: --respond FILE gives the \
            body (--status and -H the rest; HEAD gets the headers only), --echo answers \
            with the request's body, and by default each request is printed and answered \
            with an empty 200. A request with Connection: close (or HTTP/1.0 without \
            keep-alive) is answered and the connection closed; a malformed one gets 400, \
            one over --max-frame 413, and the connection is closed. One line per request \
            (-q: none): 127.0.0.1:5123 GET /x -> 200 (12 bytes).

            Over udp:// each datagram is one message; the sender of each is printed.

            nc's and ncat's habits: -u makes PORT or HOST:PORT a udp:// endpoint (nc -lu), and \
            -p PORT is the same as the endpoint PORT (ncat -l -p); -k keeps listening (ncat -k).

            Places are not held forever: a client that has not finished its TLS handshake \
            or WebSocket upgrade --handshake-timeout after connecting is closed and counted \
            as refused; --idle-timeout closes a client once nothing went either way for that \
            long (off by default); and when --max-clients are taken, a newcomer takes the \
            place of the slowest client moving fewer than --min-rate bytes a second over its \
            last --rate-window (--min-rate 0: the newcomer is refused). The refusal line says \
            what holds the places.

            Over ws://HOST:PORT/PATH clients are upgraded only on PATH (other paths get 404, \
            plain HTTP 426); each client's Origin header is logged, and with --allow-origin \
            (repeatable) other origins — and clients that send none — get 403. Each text \
            message is printed on its own line, each binary message byte for byte; --echo \
            sends every message back with its type (text as text, binary as binary); input \
            lines (or --framing frames) go to the clients as messages (--binary: each chunk read is one binary message). Pings are \
            answered; frames that break RFC 6455 close the client with 1002, 1007 or 1009. \
            This is the server mode of the \
            Autobahn test suite (see README, make conformance):
              sockctl listen ws://127.0.0.1:9001/ --echo -k

            Examples:
              sockctl listen 7000 --echo --keep-open
              sockctl listen :7000 --framing crlf --respond reply.json --delay 10ms
              sockctl listen 0.0.0.0:6969 --broadcast --framing line --allow 10.0.0.0/8
              sockctl listen udp://:5353
              sockctl listen http://:8080 --respond index.html -k
              sockctl listen http://:8080 --status 503 -H 'Retry-After: 1' -k
              sockctl listen -u -p 5353 --echo             # ncat -l -u -p 5353 --exec cat
              sockctl listen 7000 --echo -k --record clients.pcap
              sockctl listen unix:/tmp/app.sock --discard -k -q
              sockctl listen 7000 --echo -k --metrics-listen 9464   # Prometheus: clients, bytes, datagrams
              sockctl listen ws://127.0.0.1:8080/chat --broadcast --allow-origin http://localhost:3000
              sockctl listen 7000 -k --exec 'tr a-z A-Z'        # ncat -l 7000 -k -e
              sockctl listen 7000 --sh-exec 'echo "hello $SOCKCTL_PEER_ADDR"'

            --exec PROGRAM ARGS (ncat -e) and --sh-exec LINE (ncat -c, /bin/sh -c) run a command \
            for each client (each client address over udp://), its stdin and stdout the \
            connection, its stderr ours; stdin is not read. Over WebSocket each message is a \
            line of its stdin and each line it writes a message (or --framing). A client's end \
            of sending closes the command's stdin; the command closing its stdout half-closes \
            the connection; the connection is closed when it exits. When the client closes first the \
            command has 2 seconds to end on its own, then gets SIGTERM, and SIGKILL 2 seconds \
            later (SIGTERM at once when the connection fails or sockctl stops). Its environment \
            holds SOCKCTL_PEER_ADDR, SOCKCTL_PEER_PORT, SOCKCTL_LOCAL_ADDR, \
            SOCKCTL_LOCAL_PORT, SOCKCTL_TRANSPORT and ncat's NCAT_REMOTE_ADDR, \
            NCAT_REMOTE_PORT, NCAT_LOCAL_ADDR, NCAT_LOCAL_PORT, NCAT_PROTO. Anyone who can \
            connect runs it: keep it on loopback.
            """
    )

    // Text, read in validate() (as connect's): an endpoint read while parsing is judged before
    // the parser looks for unknown options.
    @Argument(help: ArgumentHelp(
        "Where to listen: PORT, :PORT, HOST:PORT, [v6]:PORT, tcp://, udp://[HOST]:PORT, unix:/path, ws://[HOST]:PORT/path or http(s)://[HOST]:PORT (or -p PORT).",
        valueName: "endpoint"))
    var endpointText: String?

    @Option(name: .customShort("p"), help: ArgumentHelp("Listen on this port of loopback, as ncat -l -p (the same as the endpoint PORT).", valueName: "port"))
    var port: Int?

    @Flag(name: [.customShort("u"), .long], help: "UDP, as nc -u: PORT or HOST:PORT means udp://HOST:PORT.")
    var udp = false

    @Flag(name: .long, help: "Send every message back to its sender.")
    var echo = false

    @Flag(name: .long, help: "Read and count what clients send; print nothing.")
    var discard = false

    @Flag(name: .long, help: "Send every message from one client to all the others (implies --keep-open).")
    var broadcast = false

    @Option(name: .long, help: ArgumentHelp("Answer every message with this file's content.", valueName: "file"))
    var respond: String?

    @Option(name: .long, help: ArgumentHelp("Wait this long after each message before answering it.", valueName: "dur"))
    var delay: Duration?

    @Flag(name: [.customShort("k"), .long], help: "Keep accepting clients after the first one leaves.")
    var keepOpen = false

    @OptionGroup(title: "Command (a shell on a port: see the README's warning)") var command: ExecOptions

    @OptionGroup var admission: AdmissionOptions

    @Flag(name: .long, help: "Clients begin with a PROXY protocol header (v1 or v2, as haproxy's send-proxy writes): the client's address it carries is the one logged and recorded; a client without one, or with a malformed one, is refused. Stream endpoints only.")
    var acceptProxyProtocol = false

    @OptionGroup var recording: RecordOptions<ListenRecording>

    @Flag(name: .long, help: "Only receive: never read stdin (print mode otherwise sends it to the clients).")
    var recvOnly = false

    @OptionGroup(title: "HTTP (http:// and https://)") var httpResponse: HTTPResponseOptions
    @OptionGroup(title: "HTTP (http:// and https://)") var responseHeaders: ResponseHeaderOptions
    @OptionGroup(title: "Framing") var framing: FramingOptions
    @OptionGroup(title: "WebSocket") var webSocket: WebSocketMessageOptions

    @Option(name: .long, help: ArgumentHelp("WebSocket: admit only clients whose Origin header is this (repeatable); others get 403.", valueName: "origin"),
            transform: ArgumentValues.origin)
    var allowOrigin: [String] = []

    @Option(name: .long, help: ArgumentHelp("Serve Prometheus metrics at http://ADDR/metrics, e.g. 9464, 0.0.0.0:9464 or :0 (a bare port: loopback).", valueName: "addr"),
            transform: { try MetricsListenAddress(parsing: $0) })
    var metricsListen: MetricsListenAddress?

    @OptionGroup(title: "Observability") var observability: ObservabilityOptions
    @Flag(name: .shortAndLong, help: "No per-client log lines (connected, disconnected, refused, datagrams); warnings, errors and the summary still.")
    var quiet = false
    @OptionGroup(title: "TLS (tls:// and wss://)") var tls: ListenTLSOptions

    func validate() throws {
        // Words that make no endpoint are reported by run(), once the parser has named any
        // unknown option (it looks for those after validate()).
        guard (try? NetcatArguments.listenerEndpoint(endpointText, port: port, udp: udp)) != nil else { return }
        _ = try validating { try makeConfiguration() }
    }

    func makeConfiguration(diagnostics: Diagnostics? = nil) throws -> ListenConfiguration {
        let endpoint = try NetcatArguments.listenerEndpoint(endpointText, port: port, udp: udp)
        if quiet && observability.verbose { throw UsageError("-q and -v exclude each other") }
        let modes = [echo, discard, broadcast, respond != nil].filter { $0 }.count
        if modes > 1 { throw UsageError("choose one of --echo, --discard, --broadcast and --respond") }
        var configuration = ListenConfiguration(endpoint: endpoint)
        configuration.framing = framing.framing
        try httpResponse.apply(to: &configuration.httpResponse, endpoint: endpoint)
        if !responseHeaders.headers.isEmpty {
            guard endpoint.transport.isHTTP else { throw UsageError("--header needs an http:// or https:// endpoint (a listener's headers go on its HTTP responses)") }
            configuration.httpResponse.headers = try responseHeaders.httpResponseHeaders()
        }
        if endpoint.transport.isHTTP {
            guard framing.framing == .raw || framing.framing == .http else {
                throw UsageError("--framing \(framing.framing) does not apply to \(endpoint.transport.rawValue)://: its requests are cut as HTTP/1.1")
            }
            if discard || broadcast { throw UsageError("--discard and --broadcast do not apply to \(endpoint.transport.rawValue)://: every request is answered") }
            configuration.framing = .http
        }
        configuration.maximumFrameSize = try framing.maximumFrameSize()
        // A command is checked first: it excludes the modes and --delay, whatever those need.
        let exec = try command.configuration()
        if exec != nil {
            try command.refuse("--echo", given: echo)
            try command.refuse("--discard", given: discard)
            try command.refuse("--broadcast", given: broadcast)
            try command.refuse("--respond", given: respond != nil)
            try command.refuse("--delay", given: delay != nil)
            try command.refuse("--recv-only", given: recvOnly)
        }
        if echo { configuration.mode = .echo }
        if discard { configuration.mode = .discard }
        if broadcast { configuration.mode = .broadcast }
        if let respond {
            var body = try FileReader.read(respond, limit: configuration.maximumFrameSize, option: "--respond")
            switch configuration.framing {
            case .line, .crlf, .null: body = FileReader.droppingOneTrailingNewline(body)
            case .raw, .lengthPrefixed, .fixed, .http: break
            }
            if case .fixed(let size) = configuration.framing, body.readableBytes != size {
                throw UsageError("--respond file is \(body.readableBytes) bytes but fixed:\(size) framing needs exactly \(size)")
            }
            configuration.mode = .respond(body)
        }
        if let delay {
            guard configuration.mode != .print && configuration.mode != .discard || endpoint.transport.isHTTP else {
                throw UsageError("--delay needs --echo, --respond or --broadcast")
            }
            configuration.delay = delay
        }
        configuration.keepOpen = keepOpen || broadcast
        if let exec {
            if endpoint.transport.isHTTP {
                throw UsageError("\(command.flagName ?? "--exec") does not apply to \(endpoint.transport.rawValue)://: every request is answered by the listener")
            }
            configuration.exec = exec
        }
        try admission.apply(to: &configuration.options, endpoint: endpoint)
        if acceptProxyProtocol {
            if endpoint.transport == .udp { throw UsageError("--accept-proxy-protocol needs a stream endpoint (tcp, tls, unix, ws, wss, http, https): a PROXY protocol header starts a connection") }
            configuration.options.acceptsProxyProtocol = true
        }
        configuration.options.tap = observability.tap
        try recording.validate(transport: endpoint.transport)
        configuration.options.secureTransport = try tls.layer(
            for: endpoint, keyLog: tls.keyLog.writer(secured: endpoint.transport.isSecured, diagnostics: diagnostics))
        if endpoint.transport.isWebSocket {
            webSocket.apply(to: &configuration.options.webSocket)
            configuration.options.webSocket.allowedOrigins = allowOrigin
            if configuration.delay != nil && configuration.mode != .broadcast {
                throw UsageError("--delay is not supported with --echo or --respond over WebSocket")
            }
        } else if webSocket.anyGiven || !allowOrigin.isEmpty {
            throw UsageError("WebSocket options need a ws:// or wss:// endpoint")
        }
        return configuration
    }

    func run() async throws {
        let diagnostics = Diagnostics(command: "listen", verbose: observability.verbose)
        var configuration = try makeConfiguration(diagnostics: diagnostics)
        if observability.verbose {
            configuration.options.webSocket.onEvent = { diagnostics.log($0.logLine) }
        }
        let descriptors = DescriptorLimit.raiseToHardLimit()
        if let clients = configuration.options.maximumClients, clients + 64 > descriptors {
            diagnostics.warning("--max-clients \(clients) is above the file-descriptor limit \(descriptors): raise it with `ulimit -n`")
        }
        let recorder = try recording.recorder(diagnostics: diagnostics)
        configuration.options.recorder = recorder?.hook
        // An HTTP client gets answers, never stdin.
        let readsInput = configuration.mode == .print && !recvOnly && !configuration.endpoint.transport.isHTTP && configuration.exec == nil
        let printMode = configuration.mode == .print
        let service = ListenService(
            configuration: configuration,
            output: FileDescriptorWriter.standardOutput,
            input: readsInput ? FileDescriptorSource(descriptor: 0) : nil
        ) { [quiet] event in
            let line = event.logLine(printMode: printMode)
            diagnostics.log(quiet ? line.keptWhenQuiet : line)
        }

        let signals = SignalWatcher.orderlyShutdown(diagnostics) { service.stop() }
        let bound: [SocketAddress]
        do {
            bound = try await service.bind()
        } catch {
            throw diagnostics.fail(SocketEngineError.wrapping(error, context: "listen"))
        }
        let transport = configuration.endpoint.transport
        let names = bound.map(\.displayString).joined(separator: ", ")
        diagnostics.note("listening on \(names) (\(transport.rawValue))")
        let metrics: ServiceMetrics<ListenSummary>? = if let metricsListen { try await ListenMetrics.start(metricsListen, service: service) { diagnostics.log($0.logLine) } } else { nil }
        if let metrics { diagnostics.note("metrics on \(metrics.url)") }
        if bound.contains(where: { !$0.isLoopback && transport != .unix }) {
            diagnostics.warning("listening beyond loopback: anyone who can reach this host can connect")
        }

        let summary = await service.run()
        metrics?.finish(summary)
        signals.cancel()
        recording.finish(recorder, diagnostics: diagnostics)
        diagnostics.note(summary.text(transport: transport))
        await metrics?.close()
    }
}
