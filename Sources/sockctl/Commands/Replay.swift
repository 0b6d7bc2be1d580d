import ArgumentParser
import NIOCore
import PacketDecoding
import Recording
import SocketEngine
import Synchronization

import Glibc

struct Replay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay a recorded TCP or UDP session against a server, and check its answers.",
        discussion: """
            Reads a pcap or pcapng file (from connect/listen --record, capture -w, tcpdump or \
            Wireshark), reassembles its TCP streams (retransmissions dropped, out-of-order \
            segments put back in order) and UDP flows, and sends one stream's client side to \
            TARGET with the recorded timing between messages, --speed X times faster, or \
            --topspeed. A message is a recorded segment (one packet's new bytes), or with \
            --framing a frame. The client is the side that sent the SYN.

            --list prints the streams: index, protocol, client > server, packets and bytes \
            each way, duration, how a TCP stream ended (FIN, RST, open; - for UDP). --stream N \
            picks one; without it the file must hold exactly one.

            --json prints the result as one JSON object on stdout — sent, received, the \
            --verify counts and the first mismatch's two frames, drift, ok — and everything \
            for people (the summary, a mismatch's side-by-side dump) on stderr; with --list, \
            one JSON object per stream, a line each.

            --verify compares what TARGET answers with what the recorded server answered: \
            frame by frame with --framing (and for UDP and WebSocket messages), else as one \
            byte stream. The first mismatch is printed with the frame number and the two \
            frames side by side in the tcpdump -X layout, exit status 1. --ignore REGEX \
            (repeatable, needs --framing) cuts matching text out of both sides before \
            comparing: timestamps, ids. A summary line gives the frames sent, matched and \
            mismatched and how late messages went out (timing drift).

            HTTP (--framing http, or an http:// TARGET): each answer is compared as a message — \
            start line, headers, the body de-chunked, trailers; Content-Length and \
            Transfer-Encoding count only through the body — and the header lines Date, \
            Expires, Last-Modified, Age, ETag, Server, Server-Timing, X-Request-Id, \
            X-Correlation-Id, X-Trace-Id, Traceparent, X-Runtime and X-Response-Time are left \
            out before any --ignore pattern. An answer to a HEAD request has no body.

            --as-server [HOST:]PORT turns the recording into a mock server: every client that \
            connects gets the recorded server side, each answer once the client has sent what \
            the recorded client sent before it. Runs until SIGINT or SIGTERM (exit status 0).

            A capture whose last record is cut short (a recording killed while writing) is \
            replayed up to that record, with a warning, as tcpdump reads it. Ctrl-C or SIGTERM \
            stops a replay in order: nothing more is sent, the summary says what was sent and \
            received, and the exit status is 130 (SIGINT) or 143 (SIGTERM); a second signal \
            exits at once.

            TARGET may be any client endpoint: the recorded bytes are replayed inside the new \
            transport (tls://, ws:// and wss:// carry them as TLS data or WebSocket messages).

            Exit status: 0 replayed (and, with --verify, every answer matched); 1 mismatch, \
            the target failed, or the file is bad; 2 usage error (no such stream, ...).

            Examples:
              sockctl replay session.pcap --list
              sockctl replay session.pcap --list --json | jq -c 'select(.transport == "tcp")'
              sockctl replay session.pcap 127.0.0.1:7000 --verify
              sockctl replay trace.pcapng 127.0.0.1:7000 --stream 3 --speed 2 --framing crlf --verify --ignore '"ts":[0-9]+'
              sockctl replay api.pcap http://127.0.0.1:8080/ --verify --ignore '"requestId":"[^"]*"'
              sockctl replay session.pcap tls://staging.internal:7443 --topspeed --verify
              sockctl replay session.pcap 127.0.0.1:7000 --topspeed --verify --json | jq .verify
              sockctl replay session.pcap --as-server 7000
            """
    )

    @Argument(help: ArgumentHelp("The capture: pcap or pcapng (- for stdin).", valueName: "file"))
    var file: String

    @Argument(
        help: ArgumentHelp("Where to send the client side: host:port, tcp://, tls://, ws://, wss://, udp:// or unix:.", valueName: "target"),
        transform: ArgumentValues.clientEndpoint
    )
    var target: Endpoint?

    @Flag(name: .long, help: "List the TCP and UDP streams in the file and exit.")
    var list = false

    @Flag(name: .long, help: "Write the result as JSON: one object on stdout (with --list: one object per stream, a line each); human output on stderr.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("The stream to replay (see --list); needed when the file holds more than one.", valueName: "n"))
    var stream: Int?

    @Option(name: .long, help: ArgumentHelp("Replay this many times faster than recorded (0.5: half as fast).", valueName: "x"))
    var speed: Double?

    @Flag(name: .long, help: "Ignore the recorded gaps: send every message as soon as possible.")
    var topspeed = false

    @Flag(name: .long, help: "Compare the target's answers with the recorded ones; exit 1 on the first mismatch.")
    var verify = false

    @Option(name: .long, help: ArgumentHelp("With --verify: leave text matching this regular expression out of the comparison (repeatable).", valueName: "regex"))
    var ignore: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp("Play the recorded server side to clients connecting here.", valueName: "[host:]port"),
        transform: ArgumentValues.listenerEndpoint
    )
    var asServer: Endpoint?

    @Option(name: .long, help: ArgumentHelp("Close a connection once nothing was received or sent for this long: give up on the target (with --as-server, on a client).", valueName: "dur"))
    var idleTimeout: Duration = ExchangeConfiguration.defaultTimeout

    @OptionGroup var client: ClientOptions

    func validate() throws {
        if let stream { _ = try checkedCount(stream, "--stream", within: 1...StreamExtractor.maximumStreams) }
        _ = try ReplaySpeed.chosen(speed, topspeed: topspeed)
        _ = try parsedIgnore()
        _ = try checkedPositive(idleTimeout, "--idle-timeout")
        if list {
            if target != nil || asServer != nil || verify { throw UsageError("--list only lists: it takes no TARGET, --as-server or --verify") }
            if client.observability.hexdump { throw UsageError("--hexdump shows traffic; --list sends none") }
            return
        }
        if let asServer {
            if target != nil { throw UsageError("--as-server replaces TARGET: give one or the other") }
            if verify { throw UsageError("--verify checks a target's answers; --as-server plays the server") }
            if json { throw UsageError("--json reports a replay or --list; --as-server logs its clients on stderr") }
            guard asServer.transport == .tcp || asServer.transport == .unix else {
                throw UsageError("--as-server listens on TCP or a Unix socket, not \(asServer.transport.rawValue)://")
            }
            return
        }
        guard let target else { throw UsageError("missing TARGET: where should the session be replayed? (or --list, --as-server)") }
        _ = try validating { try client.connectOptions(for: target) }
        if !ignore.isEmpty && !verify { throw UsageError("--ignore applies to --verify") }
    }

    /// The `--ignore` patterns; for HTTP frames after the default ones
    /// (``IgnorePatterns/httpVolatileHeaders``: Date, ETag, Server …).
    private func parsedIgnore(framing: Framing? = nil) throws -> IgnorePatterns {
        do {
            return try IgnorePatterns(parsing: (framing == .http ? IgnorePatterns.httpVolatileHeaders : []) + ignore)
        } catch {
            throw UsageError(OptionNames.render(error.text))
        }
    }

    func run() async throws {
        let diagnostics = Diagnostics(command: "replay", verbose: client.verbose)
        let interruption = Interruption(diagnostics, doing: asServer == nil ? "stopping" : "shutting down")
        let requested = stream
        let loaded: [RecordedStream]
        let chosen: Int
        do {
            if list {
                let (streams, _, warning) = try ReplayStreams.load(file, keep: nil)
                if let warning { diagnostics.warning(warning) }
                if streams.isEmpty { throw RecordingError(.unusableCapture, "\(file): no TCP or UDP stream in this capture") }
                FileDescriptorWriter.standardOutput.write(json ? streams.map { $0.json.rendered + "\n" }.joined() : ReplayStreams.table(streams))
                return
            }
            let (streams, _, warning) = try ReplayStreams.load(file, keep: requested ?? 1)
            if let warning { diagnostics.warning(warning) }
            chosen = try ReplayStreams.choose(streams, requested: requested, path: file)
            loaded = streams
        } catch let failure as RecordingError {
            throw diagnostics.fail(failure)
        }
        let recorded = loaded[chosen - 1]
        for side in [RecordedStream.Side.client, .server] where recorded.counters(side).missingBytes > 0 {
            let who = side == .client ? "client" : "server"
            let message = "stream \(chosen): \(plural(recorded.counters(side).missingBytes, "byte")) the \(who) sent are not in the capture"
            // The client's bytes must be exact; the server's only matter for checking and serving.
            if side == .client || verify || asServer != nil {
                diagnostics.error(message + ": cannot replay it faithfully")
                throw CommandFailed(status: 1)
            }
            diagnostics.warning(message)
        }
        // An http:// target speaks HTTP: the session is cut as HTTP unless --framing says otherwise.
        let speaksHTTP = target?.transport.isHTTP == true && client.framing.framing == .raw
        let frameFraming: Framing? = speaksHTTP ? .http : client.framing.framing == .raw ? nil : client.framing.framing
        diagnostics.event(
            "stream \(chosen): \(recorded.client) > \(recorded.server) (\(recorded.transport.rawValue)), "
                + "\(plural(recorded.messages.count, "message")), \(plural(recorded.clientCounters.bytes, "byte")) from the client, "
                + "\(recorded.serverCounters.bytes) from the server"
        )
        if let asServer {
            try await serve(recorded, on: asServer, framing: frameFraming, diagnostics: diagnostics, interruption: interruption)
            return
        }
        try await replay(recorded, framing: frameFraming, diagnostics: diagnostics, interruption: interruption)
    }

    private func replay(_ recorded: RecordedStream, framing frameFraming: Framing?, diagnostics: Diagnostics, interruption: Interruption) async throws {
        guard let endpoint = target else { return }
        let connect = try client.connectOptions(for: endpoint, diagnostics: diagnostics)
        let framed = frameFraming != nil || endpoint.transport.isMessageOriented || recorded.transport == .udp
        if !ignore.isEmpty && !framed {
            diagnostics.error("--ignore compares frame by frame: give --framing")
            throw CommandFailed(status: 2)
        }
        let maximumFrameSize = try client.framing.maximumFrameSize()
        let plan: ReplayPlan
        do {
            plan = try ReplayPlan(
                stream: recorded, framing: frameFraming, messageTarget: endpoint.transport.isMessageOriented,
                maximumFrameSize: maximumFrameSize
            )
        } catch {
            diagnostics.error("stream \(recorded.index): \(OptionNames.render(error.text))")
            throw CommandFailed(status: 1)
        }
        if plan.clientTailBytes > 0 {
            diagnostics.warning("the client's last \(plural(plan.clientTailBytes, "byte")) are not a whole \(frameFraming?.description ?? "") frame")
        }
        let client = ReplayClient(configuration: ReplayClient.Configuration(
            endpoint: endpoint, connect: connect, plan: plan, framing: frameFraming, maximumFrameSize: maximumFrameSize,
            speed: try ReplaySpeed.chosen(speed, topspeed: topspeed), verify: verify, ignore: try parsedIgnore(framing: frameFraming),
            timeout: idleTimeout,
            datagrams: recorded.transport == .udp
        ))
        interruption.onStop { client.stop() }
        let outcome = await client.run(
            onConnected: { report, local, remote in
                diagnostics.log(SessionEvent.connected(report, local: local, remote: remote).logLines())
            },
            onEvent: { diagnostics.event($0) }
        )
        interruption.cancel()
        let unit = framed ? "frame" : "segment"
        if json {
            let document = outcome.json(stream: recorded, target: endpoint, unit: unit, verify: verify, expectedBytes: plan.expectedStream.readableBytes,
                                        naming: OptionNames.flag)
            FileDescriptorWriter.standardOutput.write(document.rendered + "\n")
        }
        if outcome.interrupted {
            // Stopped early: what was sent and received; the answers not yet in are not missing.
            diagnostics.note(outcome.summary(target: endpoint, unit: unit, verify: verify))
            try interruption.exitIfInterrupted()
        }
        if outcome.report == nil, let error = outcome.error {
            throw diagnostics.fail(error)
        }
        let summary = outcome.summary(target: endpoint, unit: unit, verify: verify)
        if verify, let mismatch = outcome.verifier?.mismatch {
            // The result for a person: on stdout, unless stdout carries the JSON.
            (json ? FileDescriptorWriter.standardError : .standardOutput).write(ReplayVerifier.render(mismatch, target: endpoint.description, unit: unit))
            diagnostics.note(summary)
            diagnostics.error("the target's answers differ from the recording (\(unit) \(mismatch.frame))")
            throw CommandFailed(status: 1)
        }
        diagnostics.note(summary)
        if let error = outcome.error {
            throw diagnostics.fail(error)
        }
        if outcome.timedOut {
            let expected = plan.expectedStream.readableBytes
            if verify {
                diagnostics.error("the target sent \(outcome.bytesReceived) of \(expected) bytes, then nothing for \(idleTimeout.formatted)")
                throw CommandFailed(status: 1)
            }
            diagnostics.warning("the target sent \(plural(outcome.bytesReceived, "byte")) (the recording's server sent \(expected)), then nothing for \(idleTimeout.formatted)")
        }
        try interruption.exitIfInterrupted()
    }

    private func serve(
        _ recorded: RecordedStream, on endpoint: Endpoint, framing frameFraming: Framing?, diagnostics: Diagnostics, interruption: Interruption
    ) async throws {
        if recorded.transport == .udp {
            diagnostics.error("--as-server plays TCP streams; stream \(recorded.index) is UDP")
            throw CommandFailed(status: 2)
        }
        let maximumFrameSize = try client.framing.maximumFrameSize()
        var options = ListenOptions()
        options.tap = client.observability.tap
        let listener: Listener
        do {
            listener = try await Listener.bind(endpoint, options: options)
        } catch {
            throw diagnostics.fail(SocketEngineError.wrapping(error, context: "listen"))
        }
        interruption.onStop { Task { await listener.close() } }
        let names = listener.localAddresses.map(\.displayString).joined(separator: ", ")
        diagnostics.note("listening on \(names) (\(endpoint.transport.rawValue)), playing the server of stream \(recorded.index)")
        let server = ReplayServer(
            script: ReplayServer.script(for: recorded, framing: frameFraming, maximumFrameSize: maximumFrameSize),
            framing: frameFraming, maximumFrameSize: maximumFrameSize, speed: try ReplaySpeed.chosen(speed, topspeed: topspeed),
            timeout: idleTimeout
        ) { diagnostics.log($0.logLine) }
        await server.serve(listener)
        interruption.cancel()
        diagnostics.note(server.served.text)
    }
}
