import ArgumentParser
import Foundation
import LoadGen
import MetricsExport
import NIOCore
import SocketEngine

struct LoadTest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loadtest",
        abstract: "Load a service with many connections and report latency and errors you can trust.",
        discussion: """
            Opens -c connections (at --connect-rate per second), then sends --message on each \
            for --duration (or until --requests messages are sent), and reports throughput, \
            latency percentiles from an HDR histogram (microsecond resolution), connections, \
            and errors by kind. With --framing every reply frame is matched to its message, in \
            order, and timed; without it the run only sends (throughput).

            Pacing: without --rate each connection keeps --pipeline messages (default 1) \
            unanswered and sends the next when a reply comes back (closed loop, as fast as the \
            server allows). With --rate R, R messages per second in all are due at fixed times \
            whatever the server does (open loop); latency counts from the time a message was \
            due, so a server that stalls shows the stall in p99 instead of hiding it \
            (coordinated omission, corrected). The report shows this corrected latency and the \
            latency from the actual send. --stages 30s:100,1m:1000,30s:0 ramps the rate linearly \
            from stage to stage over the same connections.

            In --message, {{seq}} becomes the message's number in the run (from 1) and \
            {{conn}} the connection's (from 1); \\n \\r \\t \\0 \\\\ and \\xHH are escapes. \
            A reply not back within --reply-timeout times out: its connection is closed and \
            reopened. Lost connections are reopened with back-off. Every message sent is \
            answered, timed out or lost; messages due but never sent are unsent.

            --correlate KEY matches each reply to the unanswered message with the same key, \
            wherever it is (json:$.id, json:$.a.b, regex:id=(\\d+), bytes:OFFSET:LENGTH; the \
            message's key is read after {{seq}} is filled in): out-of-order and pipelined replies \
            are timed right, and replies that answer nothing (pushed by the server) are counted \
            as unmatched (--threshold 'unmatched<1%'). --label json:$.op splits counts and \
            latency by a value of each request (at most 100 values; the rest as (other)).

            Over udp:// each message is one datagram and so is each reply; over ws:// and \
            wss:// each message is one WebSocket message (nothing is appended to it) and so \
            is each reply: give --framing (raw will do) to expect replies. A connection counts \
            as open once its TLS handshake (tls://, wss://) and WebSocket upgrade are done; TLS \
            handshake times are reported apart from message latency.

            Over http:// and https:// each message is a whole HTTP/1.1 request to the \
            target's path: -X METHOD (default GET, or POST with a body), -H 'Name: value' \
            (repeatable; Host and User-Agent: sockctl/VERSION unless given), the body from \
            --message or --message-file (Content-Length is computed); {{seq}} and {{conn}} work \
            in the path too. Responses are always expected (no --framing; --pipeline N \
            pipelines), counted by status and class in the report ("responses"), --json \
            ("http") and Prometheus, with thresholds status1xx…status5xx and non2xx \
            (--threshold 'status5xx<1%', 'non2xx<=0'). Bodies are read and dropped as they \
            come (any size, constant memory). When the server closes a connection after a \
            response (Connection: close, keepalive_requests), it is reopened at once and \
            counted as a server close, not an error; requests pipelined behind it are sent \
            again. A response cut in the middle, malformed, or an unasked 101 is an http \
            error. --label http:method, http:path or http:target splits the report; with \
            several URLs it is split by path unless --label says otherwise. https:// takes \
            every TLS option.

            Output: a live one-line display on a terminal; otherwise --report-every DUR \
            prints one line per period. The final report goes to stdout; --json FILE writes \
            every figure and both histograms (HdrHistogram encoding) for `sockctl report \
            merge` and other tools; --json alone (or --json -) prints that JSON on stdout \
            and the report, like every other human line, on stderr.

            --from-pcap FILE replays every TCP stream of a capture (UDP flows against udp://), \
            or --streams 1,3,5-9 (as replay --list numbers them), concurrently, each on its own \
            connection with its recorded timing (--speed X; --topspeed: each message once the \
            previous reply is in); --scale N plays N copies, --loop repeats until --duration or \
            --requests. A message is a recorded segment (a frame with --framing); its latency \
            runs to the last byte of what the recorded server sent before the next message. \
            --verify-sample 10% checks that share of the replies (--ignore REGEX): a mismatch \
            is printed and exits 1.

            Live metrics: --metrics-listen ADDR serves Prometheus metrics at http://ADDR/metrics \
            until the summary, whose numbers the last scrape shows; --metrics-linger DUR waits (at \
            most DUR) for a scraper to read them and come back before printing it.

            One test on several machines: run N copies with --shard K/N (K from 0), each \
            with its own --json part, and add the parts with `sockctl report merge --expect N`. \
            The connections, --rate, --stages, --requests and --from-pcap stream copies are \
            split, the remainder to the lowest shards, so the N shards add up to exactly the \
            unsharded test (a shard sends the messages of the whole schedule it owns, each when \
            the whole would; {{seq}} and {{conn}} are the whole test's numbers). --barrier DIR (a directory all shards share) holds each shard \
            until --parties shards (default N) have announced themselves in it; one that waits \
            longer than --barrier-timeout fails, saying how many arrived. --start-at TIME \
            starts at a wall-clock time instead (or after the barrier). See \
            deploy/kubernetes/.

            Ctrl-C or SIGTERM stops the run in order: nothing more is sent, replies to what \
            was sent are still awaited (within --reply-timeout), and the report — marked \
            interrupted, in the text and in the JSON — and the --json file are written as \
            usual; a second signal exits at once.

            Exit status: 0; 1 when a --threshold is violated, the requested connections \
            could not be opened, or a shard could not start (--barrier timed out); 2 usage error (an output file that cannot be written \
            included, found before anything is sent); 130 (SIGINT) or 143 (SIGTERM) when a \
            signal stopped the run, after the report.

            Examples:
              sockctl loadtest 127.0.0.1:7000 -c 100 --duration 30s --framing line --message 'ping {{seq}}'
              sockctl loadtest 127.0.0.1:7000 --rate 2000 --duration 1m --framing crlf \\
                  --message '{"id":{{seq}},"op":"get"}' --threshold 'p99<50ms' --threshold 'errors<0.1%'
              sockctl loadtest 127.0.0.1:7000 --stages 30s:500,2m:500,30s:0 --framing length:4 --message-file req.bin
              sockctl loadtest 127.0.0.1:9000 -c 1000 --duration 10s --message-file blob.bin   # send-only
              sockctl loadtest udp://127.0.0.1:5353 --rate 1000 --duration 10s --framing raw --json result.json
              sockctl loadtest 127.0.0.1:7000 127.0.0.1:7001 -c 200 --duration 30s --framing line   # 100 each
              sockctl loadtest wss://localhost:8443/echo -c 50 --duration 30s --framing raw --cafile ca.pem
              sockctl loadtest 127.0.0.1:7000 --from-pcap prod.pcap --scale 4 --speed 2 --verify-sample 10%
              sockctl loadtest 127.0.0.1:7000 --from-pcap prod.pcap --streams 1,3,5-9 --topspeed --loop --duration 1m
              sockctl loadtest 127.0.0.1:7000 --rate 500 --duration 1h --framing line --metrics-listen 9464 --metrics-linger 30s
              sockctl loadtest http://127.0.0.1:8080/ -c 100 --duration 30s --threshold 'p99<20ms' --threshold 'non2xx<=0'
              sockctl loadtest 'http://127.0.0.1:8080/item/{{seq}}' --rate 1000 --duration 1m --threshold 'status5xx<1%'
              sockctl loadtest https://localhost:8443/api -X POST -H 'Content-Type: application/json' \\
                  --message '{"id":{{seq}}}' --pipeline 4 --cafile ca.pem --json result.json
              sockctl loadtest http://127.0.0.1:8080/a http://127.0.0.1:8080/b -c 20 --duration 10s   # per path
              sockctl loadtest 127.0.0.1:7000 --rate 3000 --duration 1m --framing line --shard 1/3 \\
                  --barrier /results/barrier --json /results/part-1.json   # the second of 3 machines
              sockctl loadtest 127.0.0.1:7000 --framing line --pipeline 8 --message '{"id":{{seq}},"op":"get"}' \\
                  --correlate 'json:$.id' --label 'json:$.op' --threshold 'unmatched<10'
            """
    )

    @Argument(
        help: ArgumentHelp("The target: host:port, [v6]:port, tcp://, tls://, udp://host:port, unix:/path, ws://, wss://, http:// or https://host[:port]/path. Several: the connections are spread over them in turn.", valueName: "endpoint"),
        transform: ArgumentValues.clientEndpoint
    )
    var endpoints: [Endpoint] = []

    @Option(name: [.customShort("c"), .long], help: ArgumentHelp("Connections to open and keep open (default 10).", valueName: "n"))
    var connections: Int?

    @Option(name: .long, help: ArgumentHelp("New connections per second while ramping up (0: all at once).", valueName: "r"))
    var connectRate: PerSecond = PerSecond(1000)

    @Option(name: .long, help: ArgumentHelp("How long to send after the warm-up (default 10s unless --requests).", valueName: "dur"))
    var duration: Duration?

    @Option(name: .long, help: ArgumentHelp("Send this many messages in all, then stop.", valueName: "n"))
    var requests: Int?

    @Option(name: .long, help: ArgumentHelp("Total messages per second (open loop). Without it: closed loop.", valueName: "r"))
    var rate: PerSecond?

    @Option(name: .long, help: ArgumentHelp("Rate stages DUR:RATE,... ramping linearly from --rate (or 0).", valueName: "stages"))
    var stages: String?

    @Option(
        name: .long,
        help: ArgumentHelp("The message (escapes allowed; {{seq}} and {{conn}} are filled in).", valueName: "text"),
        transform: ArgumentValues.escaped
    )
    var message: ByteBuffer?

    @Option(name: .long, help: ArgumentHelp("Send this file's content as the message (placeholders allowed).", valueName: "file"))
    var messageFile: String?

    @Option(name: .long, help: ArgumentHelp("Unanswered messages per connection (default 1; with --rate: no limit); needs --framing or an http:// target.", valueName: "k"))
    var pipeline: Int?

    @Option(name: .long, help: ArgumentHelp("Threads for the connections: event loops, or with --io threads threads of plain system calls (default: the number of cores).", valueName: "n"))
    var threads: Int?

    @Option(name: .long, help: ArgumentHelp(
        "How connections do I/O: events (event loops, --threads of them), threads (plain system calls on --threads threads waiting with epoll, as wrk; a thread per connection polling a few µs for each reply while the connections leave a core free; closed loop over tcp://, http://, ws://, wss:// or unix: with --framing or http://, or send-only over tcp:// or unix:), auto (threads when the run allows it, waits for replies, and opens plain tcp://, http:// or unix: connections or leaves a core free).",
        valueName: "auto|events|threads"))
    var io: LoadPlan.IOMode = .auto

    @Option(name: .long, help: ArgumentHelp("Run this long first without measuring.", valueName: "dur"))
    var warmup: Duration = .zero

    @Option(name: .long, help: ArgumentHelp("A reply later than this times out (its connection is reopened).", valueName: "dur"))
    var replyTimeout: Duration = LoadPlan.defaultReplyTimeout

    @Option(name: .long, defaultAsFlag: "-", parsing: .next, help: ArgumentHelp(
        "Write the result as JSON to FILE; alone (or -), to stdout, with the text report on stderr: every figure and both histograms.", valueName: "file"))
    var json: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Fail (exit 1) unless this holds, e.g. p99<50ms, errors<0.1%, rate>10000, status5xx<1% (repeatable).", valueName: "expr"),
        transform: { text in try validating { try Threshold(parsing: text) } }
    )
    var threshold: [Threshold] = []

    @Option(name: .long, help: ArgumentHelp("Print a progress line this often when stdout is not a terminal.", valueName: "dur"))
    var reportEvery: Duration?

    @Option(name: .long, help: ArgumentHelp(
        "Serve Prometheus metrics at http://ADDR/metrics, e.g. 9464, 0.0.0.0:9464 or :0 (a bare port: loopback).", valueName: "addr"),
        transform: { try MetricsListenAddress(parsing: $0) })
    var metricsListen: MetricsListenAddress?

    @Option(name: .long, help: ArgumentHelp("After the run, serve the final metrics until scraped (at most this long).", valueName: "dur"))
    var metricsLinger: Duration?

    @OptionGroup var transport: TransportOptions
    @OptionGroup(title: "HTTP (http:// and https://)") var request: HTTPRequestOptions

    @Option(
        name: .long,
        help: ArgumentHelp("Message boundaries: raw, line, crlf, null, length:N[:be|:le], fixed:N or http, for the replies; omit to only send (http:// targets: always http).", valueName: "framing"),
        completion: ArgumentValues.framingCompletion,
        transform: ArgumentValues.framing
    )
    var framing: Framing?

    @Option(name: .long, help: ArgumentHelp("Largest message accepted; a longer one closes that connection with an error.", valueName: "size"))
    var maxFrame: ByteSize = .mebibytes(16)

    @Option(name: .long, help: ArgumentHelp(
        "Match each reply to its message by this key in both, not by order: json:PATH, regex:RE (first group) or bytes:OFFSET:LENGTH, e.g. json:$.id.", valueName: "key"),
        transform: { text in try validating { try MessageField(parsing: text, option: .correlate) } })
    var correlate: MessageField?

    @Option(name: .long, help: ArgumentHelp("Split counts and latency by this value of each request, e.g. json:$.op or http:path.", valueName: "key"),
            transform: { text in try validating { try MessageField(parsing: text, option: .label) } })
    var label: MessageField?

    @OptionGroup(title: "Shards (one test on several machines)") var sharding: ShardOptions

    @Flag(name: .shortAndLong, help: "Print more on stderr: the plan, the target address and warnings.")
    var verbose = false
    @OptionGroup var terminal: TerminalOptions

    @Option(name: .long, help: ArgumentHelp("Replay the client streams of this capture as the load (see replay --list).", valueName: "file"))
    var fromPcap: String?
    @Option(name: .long, help: ArgumentHelp("With --from-pcap: only these streams, e.g. 1,3,5-9.", valueName: "list"))
    var streams: String?
    @Option(name: .long, help: ArgumentHelp("With --from-pcap: replay this many times faster than recorded (0.5: half as fast).", valueName: "x"))
    var speed: Double?
    @Flag(name: .long, help: "With --from-pcap: ignore the recorded gaps: each message once the previous reply is in.")
    var topspeed = false
    @Option(name: .long, help: ArgumentHelp("With --from-pcap: copies of each stream, each on its own connection.", valueName: "n"))
    var scale: Int?
    @Flag(name: .long, help: "With --from-pcap: start each stream again when it ends, until --duration or --requests.")
    var loop = false
    @Option(name: .long, help: ArgumentHelp("With --from-pcap: compare this share of the replies with the recording, e.g. 10%.", valueName: "p%"))
    var verifySample: String?
    @Option(name: .long, help: ArgumentHelp("With --verify-sample: leave text matching this regular expression out of the comparison (repeatable).", valueName: "regex"))
    var ignore: [String] = []

    func validate() throws {
        _ = try validating { try makePlan(loadingMessage: false) }
        _ = try replayOptions()
        if let reportEvery { _ = try checkedPositive(reportEvery, "--report-every") }
        if let metricsLinger { _ = try checkedPositive(metricsLinger, "--metrics-linger") }
        if metricsLinger != nil && metricsListen == nil { throw UsageError("--metrics-linger needs --metrics-listen") }
    }

    func makePlan(loadingMessage: Bool, diagnostics: Diagnostics? = nil) throws -> LoadPlan {
        guard let first = endpoints.first else { throw UsageError("give the target endpoint, e.g. 127.0.0.1:7000") }
        if first.transport == .unix && transport.connection.source != nil { throw UsageError("--source does not apply to unix: endpoints") }
        let maximumFrame = try maxFrame.checked("--max-frame", within: 1...(1 << 30))
        if message != nil && messageFile != nil { throw UsageError("give --message or --message-file, not both") }
        let http = first.transport.isHTTP
        if http && fromPcap != nil {
            throw UsageError("--from-pcap sends the recorded bytes as they are and does not take http:// or https:// targets yet: give the target as HOST:PORT or tls://HOST:PORT")
        }
        if http, let framing, framing != .http {
            throw UsageError("http:// and https:// targets are framed as HTTP: leave out --framing (or give --framing http)")
        }
        // HTTP: no body unless one is given (then the request is a POST unless -X says otherwise).
        var body: [UInt8]? = http ? nil : Array("ping".utf8)
        if let message {
            body = Array(message.readableBytesView)
        } else if let messageFile, loadingMessage {
            body = Array(try FileReader.read(messageFile, limit: maximumFrame, option: "--message-file").readableBytesView)
        }
        // Before the file is read (validate()), only the framing itself is checked.
        let deferred = messageFile != nil && !loadingMessage
        // Over WebSocket a message is one WebSocket message: nothing is added to it.
        let messageFraming = deferred || first.transport.isWebSocket || http ? .raw : framing ?? .raw
        var plan = try LoadPlan(endpoints: endpoints, message: try MessageTemplate(http ? [] : body ?? [], framing: messageFraming))
        plan.connectOptions = try transport.connectOptions(for: first, diagnostics: diagnostics)
        plan.naming = { OptionNames.flag($0) }  // the report names settings (an error's remedy) by flag
        plan.connections = try checkedCount(connections ?? 10, "--connections", within: 1...1_000_000)
        plan.connectRate = connectRate.value == 0 ? nil : connectRate.value
        // --from-pcap: no framing is recorded segments; HTTP targets: whole HTTP messages.
        plan.framing = http ? .http : framing ?? (fromPcap == nil ? nil : .raw)
        if http {
            let hasBody = message != nil || messageFile != nil
            plan.http = HTTPRequestTemplate(
                method: request.method(hasBody: hasBody), headers: try transport.httpRequestHeaders(for: first),
                body: hasBody ? body ?? [] : nil, userAgent: "sockctl/\(Version.number)")
        } else if request.method != nil {
            throw UsageError("-X/--method needs an http:// or https:// target")
        }
        plan.maximumFrameSize = maximumFrame
        plan.requests = try requests.map { try checkedCount($0, "--requests", within: 1...1_000_000_000_000) }
        if duration != nil && requests != nil { throw UsageError("give --duration or --requests, not both") }
        if let duration {
            plan.duration = try checkedPositive(duration, "--duration")
        } else if plan.requests != nil || stages != nil {
            plan.duration = nil
        }
        if let rate {
            guard rate.value > 0 else { throw UsageError("--rate must be a positive number per second, not 0") }
            plan.rate = rate.value
        }
        if let stages {
            if duration != nil || requests != nil { throw UsageError("--stages sets the length of the run: drop --duration and --requests") }
            plan.stages = try RateSchedule.stages(parsing: stages, initialRate: plan.rate ?? 0)
        }
        plan.pipeline = try pipeline.map { try checkedCount($0, "--pipeline", within: 1...LoadPlan.maximumPipeline) }
        if plan.pipeline != nil && plan.framing == nil { throw UsageError("--pipeline needs --framing (replies are what frees the pipeline)") }
        if let threads { plan.threads = try checkedCount(threads, "--threads", within: 1...256) }
        plan.io = io
        plan.warmup = warmup
        plan.replyTimeout = try checkedPositive(replyTimeout, "--reply-timeout")
        plan.drainTimeout = plan.replyTimeout
        (plan.correlation, plan.label) = (deferred ? nil : correlate, label)
        // Several HTTP targets: reported per URL path unless --label says otherwise.
        if http && plan.label == nil && Set(endpoints.map(\.resource)).count > 1 {
            plan.label = try MessageField(parsing: "http:path", option: .label)
        }
        try plan.validate()
        if let shard = sharding.shard { plan = try plan.sharded(shard, connections: fromPcap == nil) }
        return plan
    }

    func run() async throws {
        let diagnostics = Diagnostics(command: "loadtest", verbose: verbose)
        let interruption = Interruption(diagnostics)
        let plan = try makePlan(loadingMessage: true, diagnostics: diagnostics)
        let thresholds = threshold
        // Opened before the first packet: a path that cannot be written ends the command here.
        let jsonFile = try json.flatMap { path throws(CommandFailed) in
            path == "-" ? nil : try OutputFile.open(path, mode: .whole, option: "--json", diagnostics: diagnostics)
        }
        let jsonToStdout = json == "-"
        let out = jsonToStdout ? FileDescriptorWriter.standardError : FileDescriptorWriter.standardOutput
        let display = LoadDisplay(
            live: out.isTerminal, every: reportEvery,
            output: out)
        diagnostics.event(plan.summary)

        let metrics: LoadMetricsEndpoint? = if let metricsListen { try await LoadMetricsEndpoint.start(metricsListen, plan: plan) { diagnostics.log($0.logLine) } } else { nil }
        if let metrics { diagnostics.note("metrics on \(metrics.url)") }
        var report: LoadReport
        // A signal during the wait for the start ends it: nothing was sent, no report.
        let start = Task { [sharding] in try await sharding.waitForStart(as: plan.shard, clock: plan.connectOptions.clock, diagnostics: diagnostics) }
        interruption.onStop { start.cancel() }
        do {
            try await start.value
        } catch {
            jsonFile?.abandon()
            try interruption.exitIfInterrupted()
            throw diagnostics.fail(error)
        }
        do {
            if let replay = try replayOptions() {
                let runner = ReplayLoadRunner(plan: plan, options: replay)
                interruption.onStop { runner.stop() }
                report = try await runner.run { display.update($0) }
            } else {
                let runner = LoadRunner(plan: plan, metrics: metrics)
                interruption.onStop { runner.stop() }
                report = try await runner.run { display.update($0) }
            }
        } catch {
            display.clear()
            jsonFile?.abandon()
            throw diagnostics.fail(error)
        }
        interruption.cancel()
        display.clear()
        report.thresholds = thresholds.map { $0.evaluate(report) }
        metrics?.finish(report)
        if let metrics, let metricsLinger {
            if interruption.signal != nil {
                diagnostics.note("the run was stopped: not waiting for a scrape of its final metrics")
            } else {
                diagnostics.note("the run is over: serving its final metrics at \(metrics.url) until scraped (at most \(metricsLinger.formatted))")
                // A signal now ends the wait (the report still follows).
                let scraped = await interruption.unlessInterrupted { await metrics.linger(metricsLinger) }
                if scraped == false { diagnostics.warning("the final metrics were not scraped within --metrics-linger") }
            }
        }
        out.write(report.text + (report.replay?.verify?.firstMismatch ?? ""))
        for warning in report.warnings { diagnostics.warning(OptionNames.render(warning)) }
        if json != nil { try report.writeJSON(to: jsonFile, diagnostics: diagnostics) }
        await metrics?.close()
        let failures = report.failures(requestedConnections: plan.connections)
        if !failures.isEmpty { diagnostics.error(failures.map(OptionNames.render).joined(separator: "; ")) }
        try interruption.exitIfInterrupted()
        if !failures.isEmpty { throw CommandFailed() }
    }
}
