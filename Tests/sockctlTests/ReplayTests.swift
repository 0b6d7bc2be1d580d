import Foundation
import PacketDecoding
import TestSupport
import Testing

import Glibc

/// Captures written the way a capture tool writes them: real timestamps, Ethernet framing, and
/// (when asked) retransmitted and reordered segments.
struct CraftedCapture {
    private var frames: [(time: Int64, bytes: [UInt8])] = []
    var connection: SyntheticConnection
    var time: Int64 = 1_700_000_000_000_000_000

    init(clientPort: UInt16 = 40_000, serverPort: UInt16 = 7000) {
        connection = SyntheticConnection(
            client: TCPReassembler.Endpoint(address: .v4(0x7F00_0001), port: clientPort),
            server: TCPReassembler.Endpoint(address: .v4(0x7F00_0001), port: serverPort),
            tcp: true, clientISN: 1000, serverISN: 5000
        )
    }

    mutating func add(_ built: [[UInt8]], after milliseconds: Int64 = 0) {
        time += milliseconds * 1_000_000
        for frame in built { frames.append((time, frame)) }
    }

    /// The frames `text` makes, without adding them (to write them out of order).
    mutating func segments(_ text: String, from side: SyntheticConnection.Side) -> [[UInt8]] {
        Array(text.utf8).withUnsafeBytes { connection.data($0, from: side) }
    }

    func write(to path: String) throws {
        var output: [UInt8] = []
        var writer = try PcapWriter(linkType: .ethernet, snapshotLength: 262_144, precision: .nanoseconds) { output += $0 }
        for (time, frame) in frames {
            let header = PacketHeader(
                seconds: time / 1_000_000_000, fraction: UInt32(time % 1_000_000_000), precision: .nanoseconds,
                capturedLength: frame.count, originalLength: frame.count, linkType: .ethernet
            )
            try frame.withUnsafeBytes { try writer.write(header, $0) }
        }
        try writer.flush()
        try Data(output).write(to: URL(fileURLWithPath: path))
    }
}

/// The client payload, in order, of the only TCP stream of a capture file (for checking what
/// a target received, from its own `listen --record`).
func clientMessages(ofCapture path: String) throws -> [RecordedStream.Message] {
    let reader = try CaptureFileReader(path: path)
    var extractor = StreamExtractor(keepingMessagesOf: 1)
    while let record = try reader.next() { try extractor.add(record.header, record.bytes) }
    let streams = extractor.finish()
    return streams.first?.messages.filter { $0.side == .client } ?? []
}

/// `sockctl connect/listen --record` and `sockctl replay` as a user runs them, on loopback.
@Suite("sockctl replay", .hangGuard)
struct ReplayTests {
    /// A recorded session is a capture tcpdump reads, and replays with --verify: exit 0 against
    /// the server it was recorded from, exit 1 with the first differing frame named against a
    /// server that answers differently.
    @Test func recordedSessionDecodesWithTcpdumpAndVerifiesAgainstItsServer() async throws {
        let scratch = try Scratch()
        let echo = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "-k", "--framing", "line"], name: "echo")
        let port = try await echo.listeningPort()
        try "ping\nhello world\n".write(toFile: scratch.path("input"), atomically: true, encoding: .utf8)
        let recording = scratch.path("session.pcap")
        let connect = try await run(try sockctlPath(), ["connect", "127.0.0.1:\(port)", "--framing", "line", "--record", recording, "-v"],
                                    stdin: .file(scratch.path("input")))
        #expect(connect.status == 0, "\(connect.stderr)")
        #expect(String(decoding: connect.stdout, as: UTF8.self) == "ping\nhello world\n")
        #expect(connect.stderr.contains("recorded 1 connection"), "\(connect.stderr)")

        let decoded = try await run(try tool("tcpdump"), ["-n", "-r", recording])
        #expect(decoded.status == 0, "tcpdump: \(decoded.stderr)")
        let lines = String(decoding: decoded.stdout, as: UTF8.self).split(separator: "\n")
        #expect(lines.first?.contains("> 127.0.0.1.\(port): Flags [S], seq ") == true, "\(lines)")
        #expect(lines.contains { $0.contains("127.0.0.1.\(port) > ") && $0.contains("Flags [S.]") })
        #expect(lines.contains { $0.contains("> 127.0.0.1.\(port): Flags [P.]") })
        #expect(lines.contains { $0.contains("127.0.0.1.\(port) > ") && $0.contains("Flags [P.]") })
        #expect(lines.contains { $0.contains("Flags [F.]") })
        #expect(!String(decoding: decoded.stdout, as: UTF8.self).contains("bad"))
        let verbose = try await run(try tool("tcpdump"), ["-n", "-v", "-r", recording])
        #expect(!String(decoding: verbose.stdout, as: UTF8.self).contains("incorrect"), "checksums: \(verbose.stdout)")

        let same = try await run(try sockctlPath(), ["replay", recording, "127.0.0.1:\(port)", "--verify", "--framing", "line", "--topspeed"])
        #expect(same.status == 0, "\(same.stderr)")
        #expect(same.stderr.contains("verify: 2 frames expected, 2 matched, 0 mismatched"), "\(same.stderr)")
        let bytes = try await run(try sockctlPath(), ["replay", recording, "127.0.0.1:\(port)", "--verify"])
        #expect(bytes.status == 0, "byte-stream verify: \(bytes.stderr)")

        // A server that answers "ping" to everything: frame 1 matches, frame 2 does not.
        try "ping\n".write(toFile: scratch.path("reply"), atomically: true, encoding: .utf8)
        let other = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "-k", "--framing", "line", "--respond", scratch.path("reply")], name: "other")
        let otherPort = try await other.listeningPort()
        let differ = try await run(try sockctlPath(), ["replay", recording, "127.0.0.1:\(otherPort)", "--verify", "--framing", "line"])
        #expect(differ.status == 1, "\(differ.stderr)")
        let report = String(decoding: differ.stdout, as: UTF8.self)
        #expect(report.hasPrefix("mismatch in frame 2: differs at byte 0\n"), "\(report)")
        #expect(report.contains("0x0000:  6865 6c6c 6f20 776f 726c 64"), "\(report)")
        #expect(report.contains("hello.world") && report.contains("  ! 0x0000:  7069 6e67"), "\(report)")
        #expect(differ.stderr.contains("1 matched, 1 mismatched"), "\(differ.stderr)")
        #expect(differ.stderr.contains("differ from the recording (frame 2)"), "\(differ.stderr)")

        // --ignore: the differing text left out, the frames match.
        let ignored = try await run(try sockctlPath(), ["replay", recording, "127.0.0.1:\(otherPort)", "--verify", "--framing", "line", "--ignore", "^.*$"])
        #expect(ignored.status == 0, "\(ignored.stderr)")
        echo.signal(SIGINT)
        other.signal(SIGINT)
        _ = try await echo.wait()
        _ = try await other.wait()
    }

    /// A capture made by tcpdump (not by sockctl) of a loopback session replays exactly the
    /// client's byte stream.
    @Test(.enabled(if: geteuid() == 0, "live capture needs root"))
    func tcpdumpCaptureReplaysTheClientByteStream() async throws {
        let scratch = try Scratch()
        chmod(scratch.url.path, 0o777)
        let echo = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "-k", "--framing", "crlf"], name: "echo")
        let port = try await echo.listeningPort()
        let capture = scratch.path("tcpdump.pcap")
        let tcpdump = try await Child(try tool("tcpdump"), ["-i", "lo", "-n", "-l", "-U", "--immediate-mode", "--print", "-w", capture, "tcp port \(port)"], name: "tcpdump")
        defer { tcpdump.signal(SIGKILL) }
        _ = try await tcpdump.waitForStderr("listening on lo")
        let sent = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "--framing", "crlf", #"{"id":1}"#, #"{"id":2,"op":"x"}"#, "--responses", "2"])
        // Without the exchange there are no FINs to wait for: stop here rather than wait forever.
        try #require(sent.status == 0, "\(sent.stderr)")
        // Both FINs seen, then tcpdump stopped the way a user stops it (it writes what it has).
        try await tcpdump.waitForStdout("Flags [F", count: 2)
        tcpdump.signal(SIGINT)
        #expect(try await tcpdump.wait() == 0, "\(tcpdump.stderr)")

        let list = try await run(try sockctlPath(), ["replay", capture, "--list"])
        #expect(list.status == 0, "\(list.stderr)")
        let table = String(decoding: list.stdout, as: UTF8.self)
        #expect(table.hasPrefix("STREAM  PROTO  CLIENT"), "\(table)")
        #expect(table.contains("tcp    127.0.0.1."), "\(table)")
        #expect(table.contains(">  127.0.0.1.\(port)"), "\(table)")
        #expect(table.contains(" FIN\n"), "\(table)")

        let sink = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--recv-only"], name: "sink")
        let sinkPort = try await sink.listeningPort()
        let replay = try await run(try sockctlPath(), ["replay", capture, "127.0.0.1:\(sinkPort)", "--topspeed"])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(try await sink.wait() == 0)
        #expect(sink.stdoutText == "{\"id\":1}\r\n{\"id\":2,\"op\":\"x\"}\r\n")
        echo.signal(SIGINT)
        _ = try await echo.wait()
    }

    /// Retransmitted and out-of-order segments (written into the file as a lossy path would
    /// deliver them) replay as the reassembled stream, each byte once and in order.
    @Test func retransmissionsAndReorderingReplayTheReassembledStream() async throws {
        let scratch = try Scratch()
        var capture = CraftedCapture()
        capture.add(capture.connection.open())
        let first = capture.segments("first,", from: .client)
        let second = capture.segments("second,", from: .client)
        let third = capture.segments("third\n", from: .client)
        capture.add(first, after: 1)
        capture.add(third, after: 1)  // overtakes the second
        capture.add(second, after: 1)
        capture.add(second, after: 1)  // retransmitted
        capture.add(first, after: 1)  // retransmitted
        capture.add(capture.connection.close(first: .client), after: 1)
        try capture.write(to: scratch.path("lossy.pcap"))

        let list = try await run(try sockctlPath(), ["replay", scratch.path("lossy.pcap"), "--list"])
        #expect(String(decoding: list.stdout, as: UTF8.self).contains("127.0.0.1.40000  >  127.0.0.1.7000"), "\(list.stdout)")
        #expect(String(decoding: list.stdout, as: UTF8.self).contains("  19    0"), "\(String(decoding: list.stdout, as: UTF8.self))")

        let sink = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--recv-only"], name: "sink")
        let port = try await sink.listeningPort()
        let replay = try await run(try sockctlPath(), ["replay", scratch.path("lossy.pcap"), "127.0.0.1:\(port)", "--topspeed"])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(try await sink.wait() == 0)
        #expect(sink.stdoutText == "first,second,third\n")
    }

    /// `--as-server` answers a client that repeats the recorded requests with the recorded
    /// responses.
    @Test func asServerAnswersWithTheRecordedResponses() async throws {
        let scratch = try Scratch()
        var capture = CraftedCapture()
        capture.add(capture.connection.open())
        capture.add(capture.segments("HELLO v1\n", from: .client), after: 1)
        capture.add(capture.segments("WELCOME\n", from: .server), after: 1)
        capture.add(capture.segments("READY\n", from: .server), after: 0)
        capture.add(capture.segments("GET 42\n", from: .client), after: 5)
        capture.add(capture.segments("VALUE 42 = forty-two\n", from: .server), after: 1)
        capture.add(capture.connection.close(first: .client), after: 1)
        try capture.write(to: scratch.path("mock.pcap"))

        let server = try await Child(try sockctlPath(), ["replay", scratch.path("mock.pcap"), "--as-server", "127.0.0.1:0"], name: "mock")
        let port = try await server.listeningPort()
        for _ in 0..<2 {
            let client = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "--framing", "line", "HELLO v1", "GET 42", "--responses", "3"])
            #expect(client.status == 0, "\(client.stderr)")
            #expect(String(decoding: client.stdout, as: UTF8.self) == "WELCOME\nREADY\nVALUE 42 = forty-two\n")
        }
        server.signal(SIGINT)
        #expect(try await server.wait() == 0)
        #expect(server.stderr.contains("summary: 2 clients, 32 bytes in, 70 bytes out"), "\(server.stderr)")
    }

    /// One session recorded on both sides: `listen LISTEN… --record` and `connect CONNECT(port)…
    /// --record` with `input` on stdin, echoed back whole; returns once the listener (stopped
    /// after `awaitingOnListener` appears on its stderr, if given) has exited cleanly.
    func recordEchoSession(
        listen: [String], connect: (Int) -> [String], input: String, awaitingOnListener: String? = nil, scratch: Scratch
    ) async throws -> (port: Int, connect: String, listen: String) {
        let listenRecording = scratch.path("listen.pcap")
        let echo = try await Child(try sockctlPath(), ["listen"] + listen + ["--record", listenRecording], name: "echo")
        defer { echo.signal(SIGKILL) }
        let port = try await echo.listeningPort()
        try input.write(toFile: scratch.path("input"), atomically: true, encoding: .utf8)
        let connectRecording = scratch.path("connect.pcap")
        let client = try await run(try sockctlPath(), ["connect"] + connect(port) + ["--record", connectRecording],
                                   stdin: .file(scratch.path("input")))
        #expect(client.status == 0, "\(client.stderr)")
        #expect(String(decoding: client.stdout, as: UTF8.self) == input)
        if let awaitingOnListener { try await echo.waitForStderr(awaitingOnListener) }
        echo.signal(SIGINT)
        #expect(try await echo.wait() == 0, "\(echo.stderr)")
        return (port, connectRecording, listenRecording)
    }

    /// `replay RECORDING TARGET(port) --verify --topspeed` against a new `listen LISTEN…`.
    func replayIntoFreshEcho(
        _ recording: String, listen: [String], target: (Int) -> String
    ) async throws -> (status: Int32, stdout: Data, stderr: String) {
        let echo = try await Child(try sockctlPath(), ["listen"] + listen, name: "echo-2")
        defer { echo.signal(SIGKILL) }
        let port = try await echo.listeningPort()
        return try await run(try sockctlPath(), ["replay", recording, target(port), "--verify", "--topspeed"])
    }

    /// UDP records as UDP, on both sides: connect's session and a UDP listener's peer decode
    /// with tcpdump as datagrams each way, list as one udp stream, and replay with --verify
    /// datagram by datagram.
    @Test func udpSessionsRecordAsUDPOnBothSides() async throws {
        let scratch = try Scratch()
        let (port, connectRecording, listenRecording) = try await recordEchoSession(
            listen: ["udp://127.0.0.1:0", "--echo"], connect: { ["udp://127.0.0.1:\($0)", "--framing", "line"] },
            input: "one\ntwo!\n", scratch: scratch
        )
        for recording in [connectRecording, listenRecording] {
            let decoded = try await run(try tool("tcpdump"), ["-n", "-r", recording])
            #expect(decoded.status == 0, "tcpdump: \(decoded.stderr)")
            let lines = String(decoding: decoded.stdout, as: UTF8.self).split(separator: "\n")
            #expect(lines.filter { $0.contains("> 127.0.0.1.\(port): UDP, length") }.count == 2, "\(recording): \(lines)")
            #expect(lines.filter { $0.contains("127.0.0.1.\(port) > ") && $0.contains("UDP, length") }.count == 2, "\(recording): \(lines)")
            let listed = try await run(try sockctlPath(), ["replay", recording, "--list"])
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect(String(decoding: listed.stdout, as: UTF8.self).contains("udp"), "\(String(decoding: listed.stdout, as: UTF8.self))")
        }

        let replay = try await replayIntoFreshEcho(listenRecording, listen: ["udp://127.0.0.1:0", "--echo"], target: { "udp://127.0.0.1:\($0)" })
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stderr.contains("2 matched, 0 mismatched"), "\(replay.stderr)")
    }

    /// Over ws:// each message is recorded as one TCP segment, on both sides — also the
    /// messages a listener echoes on its event loop — and a replay into ws:// sends the same
    /// messages and verifies the answers.
    @Test func webSocketSessionsRecordOneSegmentPerMessage() async throws {
        let scratch = try Scratch()
        let (port, connectRecording, listenRecording) = try await recordEchoSession(
            listen: ["ws://127.0.0.1:0/rec", "--echo", "-k"], connect: { ["ws://127.0.0.1:\($0)/rec"] },
            input: "alpha\nbe\n", awaitingOnListener: "client 1 from", scratch: scratch
        )
        for recording in [connectRecording, listenRecording] {
            let decoded = try await run(try tool("tcpdump"), ["-n", "-r", recording])
            #expect(decoded.status == 0, "tcpdump: \(decoded.stderr)")
            let lines = String(decoding: decoded.stdout, as: UTF8.self).split(separator: "\n")
            // alpha (5) and be (2) each way, payload only.
            for length in [5, 2] {
                #expect(lines.filter { $0.contains("> 127.0.0.1.\(port): Flags [P.]") && $0.hasSuffix("length \(length)") }.count == 1, "\(recording): \(lines)")
                #expect(lines.filter { $0.contains("127.0.0.1.\(port) > ") && $0.contains("Flags [P.]") && $0.hasSuffix("length \(length)") }.count == 1, "\(recording): \(lines)")
            }
        }

        let replay = try await replayIntoFreshEcho(listenRecording, listen: ["ws://127.0.0.1:0/rec", "--echo", "-k"], target: { "ws://127.0.0.1:\($0)/rec" })
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stderr.contains("sent 2 messages (7 bytes)"), "\(replay.stderr)")
    }

    /// Over ws:// the recorded frames travel as WebSocket messages and over tls:// as TLS data
    /// (the engine's connect path): echo servers answer each with itself, and the answers
    /// verify against the recording.
    @Test func replaysInsideWebSocketAndTLSTransports() async throws {
        let scratch = try Scratch()
        var capture = CraftedCapture()
        capture.add(capture.connection.open())
        capture.add(capture.segments("first\nsecond\n", from: .client), after: 1)
        capture.add(capture.segments("first\nsecond\n", from: .server), after: 1)
        capture.add(capture.connection.close(first: .client), after: 1)
        try capture.write(to: scratch.path("lines.pcap"))
        let server = try await Child(try sockctlPath(), ["listen", "ws://127.0.0.1:0/echo", "--echo", "-k"], name: "ws")
        let port = try await server.listeningPort()
        let replay = try await run(try sockctlPath(), ["replay", scratch.path("lines.pcap"), "ws://127.0.0.1:\(port)/echo", "--framing", "line", "--verify"])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stderr.contains("sent 2 messages (11 bytes) to ws://127.0.0.1:\(port)/echo"), "\(replay.stderr)")
        #expect(replay.stderr.contains("2 frames expected, 2 matched, 0 mismatched"), "\(replay.stderr)")
        server.signal(SIGKILL)

        // The same recording inside TLS, verified against the test CA.
        let certs = try await TestCertificates.shared.directory()
        let tls = try await Child(try sockctlPath(), ["listen", "tls://127.0.0.1:0", "--cert", "\(certs)/server.pem", "--key", "\(certs)/server.key", "--echo", "-k"], name: "tls")
        defer { tls.signal(SIGKILL) }
        let tlsPort = try await tls.listeningPort()
        let secure = try await run(try sockctlPath(), ["replay", scratch.path("lines.pcap"), "tls://127.0.0.1:\(tlsPort)", "--cafile", "\(certs)/ca.pem",
                                                       "--framing", "line", "--verify"])
        #expect(secure.status == 0, "\(secure.stderr)")
        #expect(secure.stderr.contains("2 frames expected, 2 matched, 0 mismatched"), "\(secure.stderr)")
        // Without the CA: refused, with the reason.
        let refused = try await run(try sockctlPath(), ["replay", scratch.path("lines.pcap"), "tls://127.0.0.1:\(tlsPort)", "--framing", "line"])
        #expect(refused.status == 1)
        let reason = "TLS handshake failed: certificate signed by an unknown CA (issuer CN=sockctl test CA): give that CA with --cafile"
        #expect(refused.stderr.contains("error: \(reason)\n"), "\(refused.stderr)")
        let refusedJSON = try await run(try sockctlPath(), ["replay", scratch.path("lines.pcap"), "tls://127.0.0.1:\(tlsPort)", "--framing", "line", "--json"])
        #expect(refusedJSON.status == 1)
        #expect(String(decoding: refusedJSON.stdout, as: UTF8.self).contains(#""error":"\#(reason)""#), "\(String(decoding: refusedJSON.stdout, as: UTF8.self))")
    }

    /// A file that is not what replay needs is one clear line and exit 1 or 2, never a trap.
    @Test func badInputIsOneLineAndNeverATrap() async throws {
        let scratch = try Scratch()
        // A capture with no TCP or UDP: one ARP frame.
        var output: [UInt8] = []
        var writer = try PcapWriter(linkType: .ethernet, snapshotLength: 65_535) { output += $0 }
        let arp: [UInt8] = Array(repeating: 0xFF, count: 6) + Array(repeating: 0x02, count: 6) + [0x08, 0x06] + Array(repeating: 0, count: 28)
        try arp.withUnsafeBytes {
            try writer.write(PacketHeader(seconds: 1, fraction: 0, precision: .microseconds, capturedLength: arp.count, originalLength: arp.count, linkType: .ethernet), $0)
        }
        try writer.flush()
        try Data(output).write(to: URL(fileURLWithPath: scratch.path("arp.pcap")))

        var capture = CraftedCapture()
        capture.add(capture.connection.open())
        capture.add(capture.segments(String(repeating: "x", count: 300), from: .client), after: 1)
        capture.add(capture.connection.close(first: .client), after: 1)
        try capture.write(to: scratch.path("one.pcap"))
        let whole = try Data(contentsOf: URL(fileURLWithPath: scratch.path("one.pcap")))
        try whole.prefix(whole.count - 100).write(to: URL(fileURLWithPath: scratch.path("cut.pcap")))
        try Data("not a capture at all".utf8).write(to: URL(fileURLWithPath: scratch.path("text.pcap")))

        let cases: [(arguments: [String], status: Int32, message: String)] = [
            ([scratch.path("arp.pcap"), "127.0.0.1:9"], 1, "no TCP or UDP stream in this capture"),
            ([scratch.path("arp.pcap"), "--list"], 1, "no TCP or UDP stream in this capture"),
            ([scratch.path("one.pcap"), "127.0.0.1:9", "--stream", "7"], 2, "no stream 7: it has only stream 1 (see --list)"),
            ([scratch.path("text.pcap"), "127.0.0.1:9"], 1, "unknown file format"),
            ([scratch.path("missing.pcap"), "127.0.0.1:9"], 2, "No such file or directory"),
            ([scratch.path("one.pcap")], 2, "missing TARGET"),
            ([scratch.path("one.pcap"), "127.0.0.1:9", "--speed", "0"], 2, "--speed must be a number"),
            ([scratch.path("one.pcap"), "127.0.0.1:9", "--speed", "2", "--topspeed"], 2, "--speed and --topspeed exclude each other"),
            ([scratch.path("one.pcap"), "127.0.0.1:9", "--verify", "--ignore", "("], 2, "invalid --ignore regular expression"),
        ]
        for testCase in cases {
            let result = try await run(try sockctlPath(), ["replay"] + testCase.arguments)
            #expect(result.status == testCase.status, "\(testCase.arguments): \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(testCase.arguments): \(result.stderr)")
            #expect(result.stderr.contains(testCase.message), "\(testCase.arguments): \(result.stderr)")
            #expect(!result.stderr.contains("Fatal error"))
        }
        // Cut short in its last records: not refused, read as tcpdump reads it — the packets
        // before the cut, and one warning line.
        let cut = try await run(try sockctlPath(), ["replay", scratch.path("cut.pcap"), "--list"])
        #expect(cut.status == 0, "\(cut.stderr)")
        #expect(cut.stderr.split(separator: "\n").count == 1 && cut.stderr.contains("warning: \(scratch.path("cut.pcap")): truncated dump file"), "\(cut.stderr)")
        #expect(String(decoding: cut.stdout, as: UTF8.self).split(separator: "\n").count == 2, "the header and stream 1")
        // Two streams and no --stream: the error lists them.
        var two = CraftedCapture()
        two.add(two.connection.open())
        two.add(two.segments("a", from: .client), after: 1)
        var second = CraftedCapture(clientPort: 40_001)
        second.add(second.connection.open())
        second.add(second.segments("b", from: .client), after: 1)
        let both = try run2(scratch, two, second)
        let ambiguous = try await run(try sockctlPath(), ["replay", both, "127.0.0.1:9"])
        #expect(ambiguous.status == 2)
        #expect(ambiguous.stderr.hasPrefix("sockctl replay: error: \(both) holds 2 streams: choose one with --stream N\nSTREAM"), "\(ambiguous.stderr)")
    }

    /// Both crafted sessions in one file (the second starts after the first).
    private func run2(_ scratch: Scratch, _ first: CraftedCapture, _ second: CraftedCapture) throws -> String {
        var merged = first
        merged.append(second)
        let path = scratch.path("two.pcap")
        try merged.write(to: path)
        return path
    }
}

extension CraftedCapture {
    mutating func append(_ other: CraftedCapture) {
        for (offset, frame) in other.frames.enumerated() {
            frames.append((time + Int64(offset + 1) * 1_000_000, frame.bytes))
        }
    }
}

/// Replay timing as a user sees it: messages go out in order and never before they are due, so
/// a recording spanning 600 ms takes at least that (300 ms at --speed 2). The exact instants
/// are checked in virtual time (RecordingTests.ReplayScheduleTests).
@Suite("sockctl replay timing", .hangGuard)
struct ReplayTimingTests {
    /// Client messages 200 ms apart.
    func spacedCapture(_ scratch: Scratch) throws -> String {
        var capture = CraftedCapture()
        capture.add(capture.connection.open())
        capture.add(capture.segments("one\n", from: .client), after: 1)
        capture.add(capture.segments("two\n", from: .client), after: 200)
        capture.add(capture.segments("three\n", from: .client), after: 200)
        capture.add(capture.segments("four\n", from: .client), after: 200)
        capture.add(capture.connection.close(first: .client), after: 1)
        let path = scratch.path("spaced.pcap")
        try capture.write(to: path)
        return path
    }

    /// Replays the capture into a `listen --record` and returns how long the replay took (from
    /// starting it to its exit, in ms), after checking what the target received.
    func replayTime(_ scratch: Scratch, _ capture: String, _ extra: [String]) async throws -> Double {
        let recording = scratch.path("target-\(UUID().uuidString.prefix(6)).pcap")
        let target = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--discard", "--record", recording], name: "target")
        let port = try await target.listeningPort()
        let clock = ContinuousClock()
        let started = clock.now
        let replay = try await run(try sockctlPath(), ["replay", capture, "127.0.0.1:\(port)"] + extra)
        let elapsed = clock.now - started
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(try await target.wait() == 0, "\(target.stderr)")
        let messages = try clientMessages(ofCapture: recording)
        #expect(messages.map { String(decoding: $0.bytes, as: UTF8.self) }.joined() == "one\ntwo\nthree\nfour\n")
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }

    /// The last message is due 601 ms into the stream: the replay cannot be done sooner.
    @Test func recordedGapsAreKept() async throws {
        let scratch = try Scratch()
        let time = try await replayTime(scratch, try spacedCapture(scratch), [])
        #expect(time >= 601, "the replay took \(time) ms; the last message is due at 601 ms")
    }

    @Test func speedTwoHalvesTheGaps() async throws {
        let scratch = try Scratch()
        let time = try await replayTime(scratch, try spacedCapture(scratch), ["--speed", "2"])
        #expect(time >= 300.5, "\(time) ms at --speed 2")
    }

    @Test func topspeedSendsEverythingInOrder() async throws {
        let scratch = try Scratch()
        _ = try await replayTime(scratch, try spacedCapture(scratch), ["--topspeed"])
    }
}
