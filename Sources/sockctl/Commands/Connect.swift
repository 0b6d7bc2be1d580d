import ArgumentParser
import NIOCore
import Recording
import SocketEngine

import Glibc

struct Connect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Connect to an endpoint and relay stdin to it and it to stdout.",
        discussion: """
            Binary-safe, like nc and ncat: stdout carries only the bytes received; -v, \
            --hexdump and errors go to stderr. When stdin ends the write side is shut down (FIN) \
            and the output keeps draining until the peer closes. When the peer closes its \
            side first, the rest of stdin is still sent (when stdin is a terminal the session \
            ends at once instead). TCP uses Happy Eyeballs (IPv6 first, IPv4 300 ms later, first to \
            connect wins) and a failure lists every address tried.

            nc's and ncat's habits work: HOST PORT (two words) for HOST:PORT, -u for udp://, \
            -w SECS to give up connecting after SECS and to end the session after SECS without \
            traffic (nc -w; a plain number is seconds), -C for CRLF line endings. -z checks \
            ports without sending anything, as nc -z: HOST PORT[-PORT]... (a port, a range, a \
            list) or HOST:PORT; each port is connected to in turn and closed, one line each on \
            stderr ("127.0.0.1 7000 (tcp) open", "... closed: connection refused"), and the \
            exit status is 0 when at least one port is open, 1 when none is.

            Over udp:// each input chunk (or framed line) is one datagram; after stdin ends, \
            replies are received until none has come for 2s (or --idle-timeout).

            With --framing other than raw, each input line is sent as one message in that \
            framing and each received message is printed on its own line.

            Over ws:// each input line is one WebSocket message (text; an empty line is an \
            empty message); with --binary each chunk read from stdin (at most 64 KiB, bytes \
            unchanged) is one binary message; with --framing each input frame of that \
            framing is one message. Each received text message is printed on its own line, \
            each binary message byte for byte (nothing added); with --framing each message is \
            written in that framing, as input is read. End of input sends a close \
            frame (--close-code, default 1000) and the session ends when the server answers. \
            Pings are answered; --ping-interval sends pings; -v shows the handshake, pings, \
            pongs and close codes. A protocol violation by the server (a masked frame, bad \
            UTF-8, a bad close code ...) closes with 1002, 1007 or 1009 and exit status 1.

            --echo-messages sends every message back with its type and reads no input: the \
            client mode of the Autobahn test suite (see README, make conformance):
              sockctl connect 'ws://127.0.0.1:9001/runCase?case=1&agent=sockctl' --echo-messages

            --record FILE.pcap writes the session as a pcap file: Ethernet, IP and TCP (or \
            UDP) headers made up around the real payload, with the real times of the \
            handshake, the data each way and the FIN or RST (over tls:// and wss:// the \
            plaintext; over ws:// and wss:// one segment per message, without the HTTP \
            upgrade and frame headers). \
            tcpdump -r, Wireshark, capture -r and replay read it. Writing never holds up \
            the socket; if it falls more than 64 MiB behind, the rest is left out and a \
            warning says how much.

            Ctrl-C or SIGTERM ends the session in order: the connection is closed, the \
            --record file completed, and a 'stopped:' line gives what was sent and received; \
            the exit status is then 130 (SIGINT) or 143 (SIGTERM). A second signal exits at once.

            --reconnect [N] retries a refused or lost connection after 1s, 2s, 4s ... (2^n \
            seconds, N attempts, default 5) while stdin is open. --heartbeat PAYLOAD sends \
            PAYLOAD (escapes \\n \\r \\t \\0 \\xHH allowed) every --heartbeat-interval and \
            declares the peer dead after --heartbeat-misses intervals with nothing received.

            Examples:
              sockctl connect example.com:80 --crlf
              echo '{"op":"ping"}' | sockctl connect 127.0.0.1:7000 --framing crlf
              sockctl connect [::1]:9000 -v --hexdump
              sockctl connect 127.0.0.1:7000 --framing crlf --record session.pcap
              sockctl connect udp://127.0.0.1:5353
              sockctl connect 127.0.0.1 7000               # nc 127.0.0.1 7000
              sockctl connect -u -w 2 127.0.0.1 5353       # nc -u -w 2 127.0.0.1 5353
              sockctl connect -z 127.0.0.1 7000-7010 8080  # nc -z: exit 0 if one is open
              sockctl connect unix:/run/app.sock
              sockctl connect 10.0.0.5:6969 --reconnect --heartbeat '{"op":"ping"}' --framing crlf
              sockctl connect ws://127.0.0.1:8080/chat --origin http://localhost -v
              sockctl connect ws://[::1]:8080/feed --subprotocol v2.feed --header 'Authorization: Bearer T'
            """
    )

    // Words, not an Endpoint: the parser reads values and runs validate() before it looks for
    // unknown options, so an endpoint read then made `connect -x 2 HOST:PORT` say "invalid
    // endpoint '2'" instead of naming -x. Words that do not make an endpoint are reported by
    // run(), after the parser has had its say (see validate()).
    @Argument(help: ArgumentHelp(
        "Where to connect: host:port, [v6]:port, tcp://, udp://host:port, unix:/path or ws://host[:port]/path; or HOST PORT, as nc takes them (with -z: HOST PORT[-PORT]...).",
        valueName: "endpoint"))
    var target: [String]

    @OptionGroup var client: ClientOptions

    @Flag(name: [.customShort("u"), .long], help: "UDP, as nc -u: HOST PORT or HOST:PORT means udp://HOST:PORT.")
    var udp = false

    @Option(name: .customShort("w"), help: ArgumentHelp(
        "Give up connecting after this long and end the session after this long without traffic, as nc -w (a plain number is seconds; --connect-timeout and --idle-timeout, when given, set their half).",
        valueName: "secs"))
    var wait: Duration?

    @Flag(name: [.customShort("z"), .long], help: "Only check whether the ports accept connections, as nc -z: a line per port on stderr, exit 0 when one is open, 1 when none is.")
    var checkPorts = false

    @Flag(name: .long, help: "WebSocket: send every message back with its type, read no input (Autobahn client mode).")
    var echoMessages = false

    @Flag(name: [.customShort("C"), .long], help: "Send LF line endings as CRLF.")
    var crlf = false

    @Flag(name: .long, help: "Only send: what arrives is read and counted but not printed; end at end of input.")
    var sendOnly = false

    @Flag(name: .long, help: "Only receive: never read stdin.")
    var recvOnly = false

    @Flag(name: .long, help: "At end of input keep the connection fully open (no FIN) until the peer closes.")
    var noShutdown = false

    @Flag(name: .long, help: "At end of input close the connection instead of half-closing it.")
    var closeOnEof = false

    @OptionGroup var recording: RecordOptions<ConnectRecording>

    @OptionGroup(title: "Command") var command: ExecOptions

    @Option(name: .long, help: ArgumentHelp("Close a connection once nothing was received or sent for this long, ending the session (default: never; -w sets it too).", valueName: "dur"))
    var idleTimeout: Duration?

    @Option(name: .long, help: ArgumentHelp("Reconnect after a refused or lost connection, at most N times in a row (default 5; write --reconnect alone for the default).", valueName: "n"))
    var reconnect: Int?

    @Option(name: .long, help: ArgumentHelp("Never wait longer than this between reconnect attempts.", valueName: "dur"))
    var reconnectMaxDelay: Duration?

    @Option(name: .long, help: ArgumentHelp("Randomise each reconnect delay by up to this fraction (0-1).", valueName: "fraction"))
    var reconnectJitter: Double?

    @Option(
        name: .long,
        help: ArgumentHelp("Send this payload every heartbeat interval (escapes allowed).", valueName: "payload"),
        transform: ArgumentValues.escaped
    )
    var heartbeat: ByteBuffer?

    @Option(name: .long, help: ArgumentHelp("Time between heartbeats.", valueName: "dur"))
    var heartbeatInterval: Duration = HeartbeatConfiguration.defaultInterval

    @Option(name: .long, help: ArgumentHelp("Declare the peer dead after this many intervals with nothing received.", valueName: "k"))
    var heartbeatMisses: Int = HeartbeatConfiguration.defaultAllowedMisses

    func validate() throws {
        let readable = checkPorts
            ? (try? NetcatArguments.checkTarget(target, udp: udp)) != nil
            : (try? NetcatArguments.clientEndpoint(target, udp: udp)) != nil
        guard readable else { return }
        if checkPorts {
            _ = try validating { try makePortCheck() }
        } else {
            _ = try validating { try makeConfiguration() }
        }
    }

    func makeConfiguration(diagnostics: Diagnostics? = nil) throws -> ClientSessionConfiguration {
        let endpoint = try NetcatArguments.clientEndpoint(target, udp: udp)
        if sendOnly && recvOnly { throw UsageError("--send-only and --recv-only exclude each other") }
        if noShutdown && closeOnEof { throw UsageError("--no-shutdown and --close-on-eof exclude each other") }
        if echoMessages && !endpoint.transport.isWebSocket { throw UsageError("WebSocket options need a ws:// or wss:// endpoint") }
        var configuration = ClientSessionConfiguration(endpoint: endpoint)
        configuration.connect = try client.connectOptions(for: endpoint, diagnostics: diagnostics)
        if let wait, client.transport.connection.connectTimeout == nil { configuration.connect.connectTimeout = wait }
        configuration.framing = client.framing.framing
        configuration.maximumFrameSize = try client.framing.maximumFrameSize()
        if crlf && configuration.framing != .raw {
            throw UsageError("--crlf applies to raw framing; use --framing crlf to send each line with CRLF")
        }
        configuration.translateLineEndings = crlf
        configuration.direction = sendOnly ? .sendOnly : (recvOnly ? .receiveOnly : .both)
        if endpoint.transport.isWebSocket {
            if crlf { throw UsageError("--crlf does not apply to WebSocket messages") }
            if echoMessages {
                if sendOnly { throw UsageError("--echo-messages and --send-only exclude each other") }
                configuration.connect.webSocket.answer = .echo
                configuration.direction = .receiveOnly
            }
        }
        try recording.validate(transport: endpoint.transport)
        if try command.configuration() != nil {
            for (flag, given) in [
                ("--echo-messages", echoMessages), ("--send-only", sendOnly), ("--recv-only", recvOnly), ("--crlf", crlf),
                ("--no-shutdown", noShutdown), ("--close-on-eof", closeOnEof), ("--reconnect", reconnect != nil), ("--heartbeat", heartbeat != nil),
            ] {
                try command.refuse(flag, given: given)
            }
        }
        configuration.inputEnd = noShutdown ? .keepOpen : (closeOnEof ? .close : .halfClose)
        configuration.endsWhenPeerFinishes = isatty(0) == 1
        if let idleTimeout {
            configuration.idleTimeout = try checkedPositive(idleTimeout, "--idle-timeout")
        } else if let wait {
            configuration.idleTimeout = try checkedPositive(wait, "-w")
        }
        if let reconnect {
            let attempts = try checkedCount(reconnect, "--reconnect", within: 1...1_000_000)
            let cap = try reconnectMaxDelay.map { try checkedPositive($0, "--reconnect-max-delay") }
            let jitter = reconnectJitter ?? 0
            guard (0...1).contains(jitter) else {
                throw UsageError("--reconnect-jitter must be a fraction from 0 to 1, not \(jitter)")
            }
            configuration.reconnect = ReconnectPolicy(maximumAttempts: attempts, maximumDelay: cap, jitter: jitter)
        } else if reconnectMaxDelay != nil || reconnectJitter != nil {
            throw UsageError("--reconnect-max-delay and --reconnect-jitter need --reconnect")
        }
        if let heartbeat {
            configuration.heartbeat = HeartbeatConfiguration(
                payload: heartbeat,
                interval: try checkedPositive(heartbeatInterval, "--heartbeat-interval"),
                allowedMisses: try checkedCount(heartbeatMisses, "--heartbeat-misses", within: 1...1000)
            )
            if configuration.direction == .sendOnly {
                throw UsageError("--heartbeat needs to receive; it cannot be combined with --send-only")
            }
        }
        return configuration
    }

    func run() async throws {
        if checkPorts { return try await runPortCheck() }
        let diagnostics = Diagnostics(command: "connect", verbose: client.verbose)
        let interruption = Interruption(diagnostics)
        var configuration = try makeConfiguration(diagnostics: diagnostics)
        if let exec = try command.configuration() {
            return try await runCommand(exec, configuration: configuration, diagnostics: diagnostics, interruption: interruption)
        }
        let input: any ByteSource = configuration.direction == .receiveOnly
            ? EmptyByteSource()
            : FileDescriptorSource(descriptor: 0)
        let recorder = try recording.recorder(diagnostics: diagnostics)
        configuration.connect.recorder = recorder?.hook
        let (webSocket, datagrams) = (configuration.endpoint.transport.isWebSocket, configuration.endpoint.transport == .udp)
        let session = ClientSession(
            configuration: configuration,
            input: input,
            output: FileDescriptorWriter.standardOutput
        ) { event in
            diagnostics.log(event.logLines(webSocket: webSocket, datagrams: datagrams))
        }
        interruption.onStop { session.stop() }
        let summary = await session.run()
        interruption.cancel()
        recording.finish(recorder, diagnostics: diagnostics)
        diagnostics.log(summary.logLines)
        try interruption.exitIfInterrupted()
        if let error = summary.error { throw diagnostics.fail(error) }
        if summary.bytesLost > 0 {
            // Not an error on the socket, but the input did not all get through: not a success.
            diagnostics.error("\(plural(summary.bytesLost, "byte")) queued for sending \(summary.bytesLost == 1 ? "was" : "were") lost when the connection ended")
            throw CommandFailed(status: 1)
        }
    }

    /// `--exec`/`--sh-exec`: the command on the connection; its exit status is connect's.
    private func runCommand(_ exec: ExecConfiguration, configuration: ClientSessionConfiguration, diagnostics: Diagnostics, interruption: Interruption) async throws {
        var configuration = configuration
        let recorder = try recording.recorder(diagnostics: diagnostics)
        configuration.connect.recorder = recorder?.hook
        let (webSocket, datagrams) = (configuration.endpoint.transport.isWebSocket, configuration.endpoint.transport == .udp)
        let session = ExecSession(configuration: configuration, exec: exec) { event in
            diagnostics.log(event.logLines(webSocket: webSocket, datagrams: datagrams))
        }
        interruption.onStop { session.stop() }
        let outcome = await session.run()
        interruption.cancel()
        recording.finish(recorder, diagnostics: diagnostics)
        try interruption.exitIfInterrupted()
        guard let exit = outcome.exit else {
            throw diagnostics.fail(outcome.error ?? SocketEngineError.wrapping(CancellationError(), context: "connect"))
        }
        diagnostics.log(outcome.logLine(subject: "command", level: .event))
        if exit.shellStatus != 0 { throw CommandFailed(status: exit.shellStatus) }
    }
}
