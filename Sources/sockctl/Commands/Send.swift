import ArgumentParser
import LoadGen
import NIOCore
import SocketEngine

import Glibc

struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send messages, wait for the responses, print them: curl for sockets.",
        discussion: """
            Each MESSAGE argument is sent as one message in the chosen framing (or the \
            content of --file, or of stdin when neither is given). Then sockctl waits for \
            --responses messages (default 1) within --timeout and prints each on its own \
            line. With raw framing over a stream the write side is shut down after sending \
            and the response is everything until the peer closes. Over udp:// each message \
            is one datagram and each response one datagram.

            Exit status: 0 when every expected response arrived; 1 on refusal, reset, \
            timeout or a connection closed early (the message says which); 2 usage error; \
            130 (SIGINT) or 143 (SIGTERM) when a signal stopped the exchange: the summary \
            line and --json ("interrupted": true) still say what was sent and received.

            Over ws:// each MESSAGE is one WebSocket message (text; --binary for binary) \
            and each response is one message; after the responses a close frame is sent \
            (--close-code).

            --json prints one object on stdout, and nothing else there, with the timings in \
            milliseconds — resolve, connect, first_byte (first message sent to first response \
            byte), total — and the responses (text, or base64 when not UTF-8); -v, --hexdump \
            and errors are on stderr, as always.

            Over http:// and https:// each MESSAGE (or --file, or stdin) is the body of \
            one request, and with none (stdin empty or a terminal) one request without a \
            body is sent (-X the method: GET without a body, POST with one; -H headers; Host, User-Agent \
            and Content-Length are set unless given), sent one after another on one \
            connection; each response body goes to stdout byte for byte, de-chunked and \
            nothing added. -v writes the request heads (> ) and the response heads (< ) on \
            stderr, as curl -v. --fail exits 1 when a final status is not 2xx: redirects \
            are not followed, so a 3xx means the target was not reached. --json adds each \
            response's status and headers ("http").

            --correlate KEY (json:PATH, regex:RE, bytes:OFFSET:LENGTH) waits for each message's \
            own reply, found by the same key in both, whatever order the replies come in; they \
            are printed in the order of the messages, other messages are counted as unmatched, \
            and --json adds each reply's key and latency ("replies") and "unmatched".

            Examples:
              sockctl send 127.0.0.1:7000 --framing crlf '{"op":"ping"}'
              sockctl send 127.0.0.1:7000 --framing line '{"id":1}' '{"id":2}' --correlate 'json:$.id' --json
              sockctl send 127.0.0.1:7000 --framing length:4 --file request.bin --responses 2
              printf 'GET / HTTP/1.0\\r\\n\\r\\n' | sockctl send example.com:80
              sockctl send udp://127.0.0.1:5353 -e 'ping\\n' --timeout 500ms --json
              sockctl send http://127.0.0.1:8080/api/items -v
              sockctl send http://127.0.0.1:8080/api/items -X PUT -H 'Content-Type: application/json' '{"id":1}' --fail
              sockctl send ws://127.0.0.1:8080/echo '{"op":"ping"}' --subprotocol v1 --json
            """
    )

    @Argument(
        help: ArgumentHelp("Where to send: host:port, [v6]:port, tcp://, udp://host:port, unix:/path, ws://host[:port]/path or http(s)://host[:port]/path.", valueName: "endpoint"),
        transform: ArgumentValues.clientEndpoint
    )
    var endpoint: Endpoint

    @Argument(help: ArgumentHelp("Messages to send, one frame each.", valueName: "message"))
    var messages: [String] = []

    @Option(name: .long, help: ArgumentHelp("Send this file's content as one message (- for stdin).", valueName: "file"))
    var file: String?

    @Flag(name: [.customShort("e"), .long], help: "Interpret \\n \\r \\t \\0 \\\\ and \\xHH in MESSAGE arguments.")
    var escapes = false

    @Option(name: .long, help: ArgumentHelp("Wait for this many response messages after each round (0: do not wait).", valueName: "n"))
    var responses: Int = 1

    @Option(name: .long, help: ArgumentHelp("Time allowed for the whole exchange once connected.", valueName: "dur"))
    var timeout: Duration = ExchangeConfiguration.defaultTimeout

    @Option(name: .customLong("repeat"), help: ArgumentHelp("Send the messages and wait for the responses this many times on one connection.", valueName: "n"))
    var rounds: Int = 1

    @Flag(name: .long, help: "Write the result as JSON: timings and responses, one object on stdout.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Match each reply to its message by this key in both, not by order: json:PATH, regex:RE (first group) or bytes:OFFSET:LENGTH, e.g. json:$.id.", valueName: "key"),
            transform: { text in try validating { try MessageField(parsing: text, option: .correlate) } })
    var correlate: MessageField?

    @Flag(name: .long, help: "http:// and https://: exit 1 when a final response's status is not 2xx (redirects are not followed, so 3xx counts).")
    var fail = false

    @OptionGroup(title: "HTTP (http:// and https://)") var request: HTTPRequestOptions

    @OptionGroup var client: ClientOptions

    func validate() throws {
        _ = try validating { try makeConfiguration(loadingMessages: false) }
    }

    func makeConfiguration(loadingMessages: Bool, diagnostics: Diagnostics? = nil) throws -> ExchangeConfiguration {
        var configuration = ExchangeConfiguration(endpoint: endpoint)
        configuration.connect = try client.connectOptions(for: endpoint, diagnostics: diagnostics)
        configuration.framing = client.framing.framing
        configuration.maximumFrameSize = try client.framing.maximumFrameSize()
        configuration.responses = try checkedCount(responses, "--responses", within: 0...1_000_000)
        configuration.rounds = try checkedCount(rounds, "--repeat", within: 1...1_000_000)
        configuration.timeout = try checkedPositive(timeout, "--timeout")
        configuration.correlate = correlate.map { field in { @Sendable body in field.value(in: body) } }
        if endpoint.transport.isHTTP {
            try makeHTTP(&configuration)
        } else if fail {
            throw UsageError("--fail needs an http:// or https:// endpoint")
        } else if request.method != nil {
            throw UsageError("--method needs an http:// or https:// endpoint")
        }
        if configuration.readsUntilClose && configuration.responses > 1 {
            throw UsageError("with raw framing the response is everything until the peer closes; use --framing to wait for \(configuration.responses) messages")
        }
        if json { configuration.collectLimit = configuration.maximumFrameSize }
        var bodies = try messages.map { text -> ByteBuffer in
            escapes ? try unescaped(text, option: "MESSAGE") : ByteBuffer(string: text)
        }
        for body in bodies where body.readableBytes > configuration.maximumFrameSize {
            throw UsageError("a message of \(body.readableBytes) bytes is over --max-frame \(client.framing.maxFrame)")
        }
        if loadingMessages {
            if let file {
                bodies.append(try FileReader.read(file, limit: configuration.maximumFrameSize, option: "--file"))
            } else if bodies.isEmpty {
                // Over HTTP, nothing to send is a request without a body.
                let http = configuration.http != nil
                guard isatty(0) == 0 else {
                    if http { configuration.messages = []; return configuration }
                    throw UsageError("nothing to send: give MESSAGE arguments, --file, or pipe the message into stdin")
                }
                let input = try FileReader.readAll(0, limit: configuration.maximumFrameSize, what: "stdin")
                if !http || input.readableBytes > 0 { bodies.append(input) }
            }
        }
        configuration.messages = bodies
        return configuration
    }

    func run() async throws {
        let diagnostics = Diagnostics(command: "send", verbose: client.verbose)
        let interruption = Interruption(diagnostics)
        let configuration = try makeConfiguration(loadingMessages: true, diagnostics: diagnostics)
        let printsResponses = !json
        let separate = configuration.http == nil && (configuration.framing != .raw || configuration.endpoint.transport.isMessageOriented)
        let exchange = Exchange(configuration: configuration)
        interruption.onStop { exchange.stop() }
        let result = await exchange.run { response in
            guard printsResponses else { return }
            var line = response
            if separate { line.writeInteger(UInt8(0x0A)) }
            try await FileDescriptorWriter.standardOutput.write(line)
        }
        if let report = result.report {
            diagnostics.log(SessionEvent.connected(report, local: result.localAddress, remote: result.remoteAddress).logLines())
        }
        interruption.cancel()
        if client.verbose { Self.printHeads(result.http) }
        // Over HTTP each message is a request (its answer a response); other transports keep "message".
        let unit = configuration.http == nil ? "message" : "request"
        let totals = "sent \(plural(result.messagesSent, unit)) (\(plural(result.bytesSent, "byte"))), received \(plural(result.responsesReceived, "response"))"
            + " (\(plural(result.bytesReceived, "byte"))) in \(result.total.formatted)"
        // Stopped early, the totals are the summary, shown without -v.
        if result.interrupted { diagnostics.note("stopped: " + totals) } else { diagnostics.event(totals) }
        if let line = result.correlationSummary { diagnostics.event(line) }
        if json {
            FileDescriptorWriter.standardOutput.write(result.json(configuration: configuration, naming: OptionNames.flag).rendered + "\n")
        }
        if let error = result.error {
            throw diagnostics.fail(error)
        }
        try interruption.exitIfInterrupted()
        if fail, let failed = result.http.first(where: { !(200..<300).contains($0.status) }) {
            diagnostics.error("\(failed.final?.statusLine ?? "no response") (--fail: the status is not 2xx)")
            throw CommandFailed(status: 1)
        }
    }
}
