import ArgumentParser
import Foundation
import LoadGen
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
            A reply not back within --timeout times out: its connection is closed and \
            reopened. Lost connections are reopened with back-off. Every message sent is \
            answered, timed out or lost; messages due but never sent are unsent.

            Over udp:// each message is one datagram and so is each reply; over ws:// and \
            wss:// each message is one WebSocket message (nothing is appended to it) and so \
            is each reply: give --framing (raw will do) to expect replies. A connection counts \
            as open once its TLS handshake (tls://, wss://) and WebSocket upgrade are done; TLS \
            handshake times are reported apart from message latency.

            Output: a live one-line display on a terminal; otherwise --report-every DUR \
            prints one line per period. The final report goes to stdout (stderr with \
            --json -); --json FILE writes every figure and both histograms (HdrHistogram \
            encoding) for `sockctl report merge` and other tools.

            Exit status: 0; 1 when a --threshold is violated, or the requested connections \
            could not be opened; 2 usage error.

            Examples:
              sockctl loadtest 127.0.0.1:7000 -c 100 --duration 30s --framing line --message 'ping {{seq}}'
              sockctl loadtest 127.0.0.1:7000 --rate 2000 --duration 1m --framing crlf \\
                  --message '{"id":{{seq}},"op":"get"}' --threshold 'p99<50ms' --threshold 'errors<0.1%'
              sockctl loadtest 127.0.0.1:7000 --stages 30s:500,2m:500,30s:0 --framing length:4 --message-file req.bin
              sockctl loadtest 127.0.0.1:9000 -c 1000 --duration 10s --message-file blob.bin   # send-only
              sockctl loadtest udp://127.0.0.1:5353 --rate 1000 --duration 10s --framing raw --json result.json
              sockctl loadtest 127.0.0.1:7000 127.0.0.1:7001 -c 200 --duration 30s --framing line   # 100 each
              sockctl loadtest wss://localhost:8443/echo -c 50 --duration 30s --framing raw --cafile ca.pem
            """
    )

    @Argument(help: ArgumentHelp("The target: host:port, [v6]:port, tcp://, tls://, udp://host:port, unix:/path, ws:// or wss://host:port/path. Several: the connections are spread over them in turn.", valueName: "endpoint"))
    var endpoints: [String] = []

    @Option(name: [.customShort("c"), .long], help: ArgumentHelp("Connections to open and keep open.", valueName: "n"))
    var connections: String = "10"

    @Option(name: .long, help: ArgumentHelp("New connections per second while ramping up (0: all at once).", valueName: "r"))
    var connectRate: String = "1000"

    @Option(name: .long, help: ArgumentHelp("How long to send after the warm-up (default 10s unless --requests).", valueName: "dur"))
    var duration: String?

    @Option(name: .long, help: ArgumentHelp("Send this many messages in all, then stop.", valueName: "n"))
    var requests: String?

    @Option(name: .long, help: ArgumentHelp("Total messages per second (open loop). Without it: closed loop.", valueName: "r"))
    var rate: String?

    @Option(name: .long, help: ArgumentHelp("Rate stages DUR:RATE,... ramping linearly from --rate (or 0).", valueName: "stages"))
    var stages: String?

    @Option(name: .long, help: ArgumentHelp("The message (escapes allowed; {{seq}} and {{conn}} are filled in).", valueName: "text"))
    var message: String?

    @Option(name: .long, help: ArgumentHelp("Send this file's content as the message (placeholders allowed).", valueName: "file"))
    var messageFile: String?

    @Option(name: .long, help: ArgumentHelp("Unanswered messages per connection (default 1; with --rate: no limit).", valueName: "k"))
    var pipeline: String?

    @Option(name: .long, help: ArgumentHelp("Event-loop threads (default: the number of cores).", valueName: "n"))
    var threads: String?

    @Option(name: .long, help: ArgumentHelp(
        "How connections do I/O: events (event loops, --threads of them), threads (one thread per connection, plain system calls, polling a few µs for each reply while the connections leave a core free; closed loop over tcp:// or unix: with --framing), auto (threads when the run allows it and has fewer connections than cores).",
        valueName: "auto|events|threads"))
    var io: String = "auto"

    @Option(name: .long, help: ArgumentHelp("Run this long first without measuring.", valueName: "dur"))
    var warmup: String = "0s"

    @Option(name: .long, help: ArgumentHelp("A reply later than this times out (its connection is reopened).", valueName: "dur"))
    var timeout: String = "5s"

    @Option(name: .long, help: ArgumentHelp("Write the full result as JSON to FILE (- for stdout).", valueName: "file"))
    var json: String?

    @Option(name: .long, help: ArgumentHelp("Fail (exit 1) unless this holds, e.g. p99<50ms, errors<0.1%, rate>10000 (repeatable).", valueName: "expr"))
    var threshold: [String] = []

    @Option(name: .long, help: ArgumentHelp("Print a progress line this often when stdout is not a terminal.", valueName: "dur"))
    var reportEvery: String?

    @OptionGroup(title: "Connection") var connection: ConnectionOptions
    @OptionGroup(title: "TLS (tls:// and wss://)") var tls: TLSOptions
    @OptionGroup(title: "WebSocket") var webSocket: WebSocketMessageOptions
    @OptionGroup(title: "WebSocket") var handshake: WebSocketHandshakeOptions

    @Option(name: .long, help: ArgumentHelp("Reply framing: line, crlf, null, length:N[:be|:le], fixed:N, raw. Omit to only send.", valueName: "framing"))
    var framing: String?

    @Option(name: .long, help: ArgumentHelp("Largest reply accepted; a longer one closes that connection.", valueName: "size"))
    var maxFrame: String = "16MiB"

    @Flag(name: .shortAndLong, help: "Print the plan, the target address and warnings on stderr.")
    var verbose = false

    func validate() throws {
        _ = try makePlan(loadingMessage: false)
        _ = try thresholds()
        if let reportEvery { _ = try ArgumentValues.positiveDuration(reportEvery, option: "--report-every") }
    }

    func thresholds() throws -> [Threshold] {
        try threshold.map { text in
            do {
                return try Threshold(parsing: text)
            } catch {
                throw UsageError("\(error)")
            }
        }
    }

    func makePlan(loadingMessage: Bool) throws -> LoadPlan {
        guard !endpoints.isEmpty else { throw UsageError("give the target endpoint, e.g. 127.0.0.1:7000") }
        let targets = try endpoints.map { try ArgumentValues.endpoint($0, role: .client) }
        if targets[0].transport == .unix && connection.source != nil { throw UsageError("--source does not apply to unix: endpoints") }
        let framing = try self.framing.map { try ArgumentValues.framing($0) }
        let maximumFrame = try ArgumentValues.byteSize(maxFrame, option: "--max-frame", range: 1...(1 << 30))
        if message != nil && messageFile != nil { throw UsageError("give --message or --message-file, not both") }
        var body: [UInt8] = Array("ping".utf8)
        if let message {
            body = Array(try ArgumentValues.unescape(message, option: "--message").readableBytesView)
        } else if let messageFile, loadingMessage {
            body = Array(try FileReader.read(messageFile, limit: maximumFrame, option: "--message-file").readableBytesView)
        }
        // Before the file is read (validate()), only the framing itself is checked.
        let deferred = messageFile != nil && !loadingMessage
        let template: MessageTemplate
        do {
            // Over WebSocket a message is one WebSocket message: nothing is added to it.
            let messageFraming = deferred || targets[0].transport.isWebSocket ? .raw : framing ?? .raw
            template = try MessageTemplate(body, framing: messageFraming)
        } catch {
            throw UsageError("--message: \(error.message)")
        }
        var plan = LoadPlan(endpoints: targets, message: template)
        plan.connectOptions = try connection.makeConnectOptions()
        plan.connectOptions.secureTransport = try tls.layer(for: targets[0])
        if targets[0].transport.isWebSocket {
            try webSocket.apply(to: &plan.connectOptions.webSocket)
            try handshake.apply(to: &plan.connectOptions.webSocket)
        } else if webSocket.anyGiven || handshake.anyGiven {
            throw UsageError("WebSocket options need a ws:// or wss:// endpoint")
        }
        plan.connections = try ArgumentValues.count(connections, option: "--connections", range: 1...1_000_000)
        let connectRate = try Self.number(self.connectRate, option: "--connect-rate", allowZero: true)
        plan.connectRate = connectRate == 0 ? nil : connectRate
        plan.framing = framing
        plan.maximumFrameSize = maximumFrame
        plan.requests = try requests.map { try ArgumentValues.count($0, option: "--requests", range: 1...1_000_000_000_000) }
        if duration != nil && requests != nil { throw UsageError("give --duration or --requests, not both") }
        if let duration {
            plan.duration = try ArgumentValues.positiveDuration(duration, option: "--duration")
        } else if plan.requests != nil || stages != nil {
            plan.duration = nil
        }
        plan.rate = try rate.map { try Self.number($0, option: "--rate", allowZero: false) }
        if let stages {
            if duration != nil || requests != nil { throw UsageError("--stages sets the length of the run: drop --duration and --requests") }
            do {
                plan.stages = try RateSchedule.stages(parsing: stages, initialRate: plan.rate ?? 0) {
                    try ArgumentValues.positiveDuration($0, option: "--stages")
                }
            } catch let error as RateSchedule.ScheduleError {
                throw UsageError("--stages: \(error.description)")
            }
        }
        plan.pipeline = try pipeline.map { try ArgumentValues.count($0, option: "--pipeline", range: 1...LoadPlan.maximumPipeline) }
        if plan.pipeline != nil && framing == nil { throw UsageError("--pipeline needs --framing (replies are what frees the pipeline)") }
        if let threads { plan.threads = try ArgumentValues.count(threads, option: "--threads", range: 1...256) }
        guard let mode = LoadPlan.IOMode(rawValue: io) else { throw UsageError("--io must be auto, events or threads, not '\(io)'") }
        plan.io = mode
        plan.warmup = try ArgumentValues.duration(warmup, option: "--warmup")
        plan.replyTimeout = try ArgumentValues.positiveDuration(timeout, option: "--timeout")
        plan.drainTimeout = plan.replyTimeout
        do {
            try plan.validate()
        } catch {
            throw UsageError(error.description)
        }
        return plan
    }

    static func number(_ text: String, option: String, allowZero: Bool) throws -> Double {
        var digits = text
        if digits.hasSuffix("/s") { digits.removeLast(2) }
        guard let value = Double(digits), value.isFinite, value >= 0, value <= 1e9, allowZero || value > 0 else {
            throw UsageError("\(option) must be a \(allowZero ? "non-negative" : "positive") number per second, not '\(text)'")
        }
        return value
    }

    func run() async throws {
        let plan = try makePlan(loadingMessage: true)
        let thresholds = try self.thresholds()
        let diagnostics = Diagnostics(command: "loadtest", verbose: verbose)
        let jsonToStdout = json == "-"
        let out = jsonToStdout ? FileDescriptorWriter.standardError : FileDescriptorWriter.standardOutput
        let display = LoadDisplay(
            live: out.isTerminal, every: try reportEvery.map { try ArgumentValues.positiveDuration($0, option: "--report-every") },
            output: out)
        diagnostics.event("\(LoadDisplay.describePlan(plan))")

        var report: LoadReport
        do {
            report = try await LoadRunner(plan: plan).run { display.update($0) }
        } catch let error as SocketEngineError {
            display.clear()
            if error.isUsageError { throw UsageError(error.message) }
            throw diagnostics.fail(error)
        }
        display.clear()
        report.thresholds = thresholds.map { $0.evaluate(report) }
        out.write(LoadDisplay.render(report))
        for warning in report.warnings { diagnostics.warning(warning) }
        if let json { try Self.writeJSON(report, to: json, diagnostics: diagnostics) }
        var failures: [String] = report.thresholds.filter { !$0.passed }.map { "threshold \($0.threshold) violated" }
        if report.connections.peakOpen < plan.connections {
            failures.append("only \(report.connections.peakOpen) of \(plan.connections) connections could be opened")
        }
        if !failures.isEmpty {
            diagnostics.error(failures.joined(separator: "; "))
            throw CommandFailed()
        }
    }

    static func writeJSON(_ report: LoadReport, to path: String, diagnostics: Diagnostics) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data: Data
        do {
            data = try encoder.encode(report)
        } catch {
            diagnostics.error("could not encode the report: \(error)")
            throw CommandFailed()
        }
        data.append(0x0A)
        if path == "-" {
            FileDescriptorWriter.standardOutput.write(Array(data))
            return
        }
        do {
            try data.write(to: URL(fileURLWithPath: path))
        } catch {
            diagnostics.error("--json \(path): \((error as NSError).localizedDescription)")
            throw CommandFailed()
        }
    }
}

/// `sockctl report merge`: one report out of the `--json` files of several runs.
struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Combine load-test results.",
        subcommands: [Merge.self]
    )

    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge the --json results of load tests run at the same time (histograms add exactly).",
            discussion: """
                For a load test that outgrows one machine: run N copies of the same \
                `sockctl loadtest ... --json part-K.json` at the same time (e.g. a Kubernetes \
                Indexed Job, see deploy/kubernetes/), then merge the parts. Counters add, the \
                latency histograms add (percentiles of the whole, not averages of percentiles), \
                rates are totals over the longest run, peak connections add. Per-second \
                latency columns cannot be added and are left out of the merged timeline.

                Exit status: 0; 1 when a --threshold is violated or a file is not a \
                sockctl load-test result of the same target; 2 usage error.

                Examples:
                  sockctl report merge part-0.json part-1.json part-2.json
                  sockctl report merge results/*.json --json total.json --threshold 'p99<50ms'
                """
        )

        @Argument(help: ArgumentHelp("Result files written by loadtest --json.", valueName: "file"))
        var files: [String]

        @Option(name: .long, help: ArgumentHelp("Write the merged result as JSON to FILE (- for stdout).", valueName: "file"))
        var json: String?

        @Option(name: .long, help: ArgumentHelp("Fail (exit 1) unless this holds for the merged result (repeatable).", valueName: "expr"))
        var threshold: [String] = []

        func validate() throws {
            if files.isEmpty { throw UsageError("give the result files to merge") }
            for text in threshold {
                do { _ = try Threshold(parsing: text) } catch { throw UsageError(error.description) }
            }
        }

        func run() throws {
            let diagnostics = Diagnostics(command: "report merge", verbose: false)
            var reports: [LoadReport] = []
            let decoder = JSONDecoder()
            for file in files {
                do {
                    let data = try Data(contentsOf: URL(fileURLWithPath: file))
                    guard data.count <= 256 << 20 else { throw UsageError("\(file): over 256 MiB, not a load-test result") }
                    reports.append(try decoder.decode(LoadReport.self, from: data))
                } catch let error as UsageError {
                    throw error
                } catch let error as DecodingError {
                    diagnostics.error("\(file): not a sockctl load-test result (\(Self.describe(error)))")
                    throw CommandFailed()
                } catch {
                    diagnostics.error("\(file): \((error as NSError).localizedDescription)")
                    throw CommandFailed()
                }
            }
            var merged: LoadReport
            do {
                merged = try LoadReport.merge(reports)
            } catch {
                diagnostics.error(error.description)
                throw CommandFailed()
            }
            let thresholds = try threshold.map { text -> Threshold in
                do { return try Threshold(parsing: text) } catch { throw UsageError("\(error)") }
            }
            merged.thresholds = thresholds.map { $0.evaluate(merged) }
            let out = json == "-" ? FileDescriptorWriter.standardError : FileDescriptorWriter.standardOutput
            out.write(LoadDisplay.render(merged))
            if let json { try LoadTest.writeJSON(merged, to: json, diagnostics: diagnostics) }
            let violated = merged.thresholds.filter { !$0.passed }
            if !violated.isEmpty {
                diagnostics.error(violated.map { "threshold \($0.threshold) violated" }.joined(separator: "; "))
                throw CommandFailed()
            }
        }

        static func describe(_ error: DecodingError) -> String {
            switch error {
            case .keyNotFound(let key, _): return "missing '\(key.stringValue)'"
            case .typeMismatch(_, let context), .valueNotFound(_, let context): return "bad '\(context.codingPath.map(\.stringValue).joined(separator: "."))'"
            case .dataCorrupted(let context): return context.debugDescription
            @unknown default: return "\(error)"
            }
        }
    }
}
