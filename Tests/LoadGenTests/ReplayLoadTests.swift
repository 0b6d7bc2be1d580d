import NIOCore
import PacketDecoding
import Recording
import SocketEngine
import Testing
@testable import LoadGen
import TestSupport

/// `loadtest --from-pcap`'s parts: which recorded reply answers which message, which replies
/// the sample checks, the flags' grammar, and — in virtual time, against a real server on
/// loopback — that each message goes out exactly when its recorded time (÷ speed) comes.
@Suite(.hangGuard) struct ReplayLoadTests {
    static let client = TCPReassembler.Endpoint(address: .v4(0x7F00_0001), port: 40_000)
    static let server = TCPReassembler.Endpoint(address: .v4(0x7F00_0001), port: 7000)
    static let t0: Int64 = 1_700_000_000_000_000_000

    /// A stream with these messages, `(milliseconds, side, text)`.
    static func stream(_ messages: [(Int64, RecordedStream.Side, String)]) -> RecordedStream {
        var stream = RecordedStream(index: 1, transport: .tcp, client: client, server: server, time: t0)
        stream.messages = messages.map { RecordedStream.Message(time: t0 + $0.0 * 1_000_000, side: $0.1, bytes: Array($0.2.utf8)) }
        for message in messages {
            if message.1 == .client { stream.clientCounters.bytes += message.2.utf8.count } else { stream.serverCounters.bytes += message.2.utf8.count }
        }
        return stream
    }

    /// The example of ``StreamScript``'s documentation: a reply belongs to the last message
    /// recorded before it; two messages of one instant share what follows (the first expects
    /// nothing).
    @Test func aReplyBelongsToTheLastMessageRecordedBeforeIt() throws {
        let recorded = Self.stream([
            (5, .client, "A\n"), (6, .server, "a\n"), (9, .client, "B\n"), (9, .client, "C\n"), (12, .server, "b\nc\n"),
        ])
        let framed = try StreamScript(stream: recorded, start: .zero, framing: .line, messageTarget: false, maximumFrameSize: 1 << 20, sample: nil)
        #expect(framed.messages.map { $0.replyStart..<$0.replyEnd } == [0..<1, 1..<1, 1..<3])
        #expect(framed.messages.map(\.expectsReply) == [true, false, true])
        #expect(framed.messages.map(\.due) == [.milliseconds(5), .milliseconds(9), .milliseconds(9)])
        let segments = try StreamScript(stream: recorded, start: .zero, framing: nil, messageTarget: false, maximumFrameSize: 1 << 20, sample: nil)
        // As a byte stream: "a\n" is bytes 0..<2, "b\nc\n" bytes 2..<6.
        #expect(segments.messages.map { $0.replyStart..<$0.replyEnd } == [0..<2, 2..<2, 2..<6])
    }

    /// A greeting sent before the first message is part of the first message's reply.
    @Test func aGreetingBelongsToTheFirstMessage() throws {
        let recorded = Self.stream([(1, .server, "HELLO\n"), (5, .client, "x\n"), (6, .server, "X\n")])
        let script = try StreamScript(stream: recorded, start: .zero, framing: .line, messageTarget: false, maximumFrameSize: 1 << 20, sample: nil)
        #expect(script.messages.map { $0.replyStart..<$0.replyEnd } == [0..<2])
    }

    /// The sample is exact and the same every run: 100 % checks all, 50 % every second message,
    /// 10 % every tenth, 0 % none.
    @Test func theSampleIsExactAndDeterministic() throws {
        for (text, expected) in [("100%", 100), ("50%", 50), ("10%", 10), ("0%", 0), ("25", 25)] {
            let sample = try VerifySample(parsing: text)
            for stream in 1...3 {
                #expect((0..<100).filter { sample.picks(stream: stream, message: $0) }.count == expected, "\(text), stream \(stream)")
            }
        }
        #expect(throws: LoadGenError.self) { try VerifySample(parsing: "150%") }
        #expect(throws: LoadGenError.self) { try VerifySample(parsing: "-1%") }
        #expect(throws: LoadGenError.self) { try VerifySample(parsing: "nan") }
    }

    @Test func streamListsParseAndRefuseWhatIsNotAList() throws {
        #expect(try StreamList(parsing: "1,3,5-9").numbers == [1, 3, 5, 6, 7, 8, 9])
        #expect(try StreamList(parsing: " 9-10, 2 ,2").numbers == [2, 9, 10])
        #expect(try StreamList(parsing: "1,3,5-9").description == "1,3,5-9")
        for bad in ["", "1,", "0", "3-1", "a", "1-2-3", "-4", "100001", "99999999999999999999"] {
            #expect(throws: LoadGenError.self, "\(bad)") { try StreamList(parsing: bad) }
        }
    }

    /// One copy of `recorded` (line framing, every reply sampled, a 5 s reply timeout) against
    /// 127.0.0.1:`port`, timed by `clock`, with the tally it reports into.
    static func replayer(of recorded: RecordedStream, to port: Int, speed: Double?, clock: VirtualClock) throws -> (StreamReplayer, ReplayTally) {
        let script = try StreamScript(stream: recorded, start: .zero, framing: .line, messageTarget: false, maximumFrameSize: 1 << 20, sample: try VerifySample(parsing: "100%"))
        var connect = ConnectOptions.patient
        connect.clock = clock.engine
        let tally = ReplayTally(requests: nil, target: "test")
        let replayer = StreamReplayer(
            script: script, endpoint: try Endpoint(parsing: "127.0.0.1:\(port)"), connect: connect, framing: .line,
            maximumFrameSize: 1 << 20, speed: try ReplaySpeed(timesRecorded: speed, topspeed: speed == nil), timeout: .seconds(5), ignore: IgnorePatterns(), tally: tally, copy: 0, round: 0, stopAt: nil)
        return (replayer, tally)
    }

    /// With `--speed`, message N goes out at its recorded time ÷ the speed from the moment the
    /// connection is up, and not a moment before — checked in virtual time against a real echo
    /// server that notes the virtual time each line arrives.
    @Test(arguments: [1.0, 2.0])
    func messagesGoOutAtTheirRecordedTimesDividedByTheSpeed(speed: Double) async throws {
        let clock = VirtualClock()
        let arrivals = AsyncMonitor<[Duration]>([])
        let server = try await TestServer.start { connection in
            while let line = try await connection.readFrame(.line) {
                arrivals.update { $0.append(clock.elapsed) }
                try await connection.write(ByteBuffer(string: String(buffer: line) + "\n"))
            }
        }
        let recorded = Self.stream([
            (0, .client, "one\n"), (1, .server, "one\n"), (100, .client, "two\n"), (101, .server, "two\n"), (250, .client, "three\n"), (251, .server, "three\n"),
        ])
        let (replayer, tally) = try Self.replayer(of: recorded, to: server.port, speed: speed, clock: clock)
        let running = Task { await replayer.run() }
        try await arrivals.wait { $0.count == 1 ? () : nil }
        for due in [Duration.milliseconds(100), .milliseconds(250)].map({ $0 / speed }) {
            // Nothing more arrives until the replayer's sleep until the next due time ends.
            let count = arrivals.value.count
            try await clock.waitForSleep(until: due)
            #expect(arrivals.value.count == count)
            await clock.advance(to: due)
            try await arrivals.wait { $0.count > count ? () : nil }
        }
        #expect(await running.value == .completed)
        #expect(arrivals.value == [.zero, .milliseconds(100) / speed, .milliseconds(250) / speed])
        let state = tally.update { $0 }
        #expect(state.stats.counters.messagesSent == 3 && state.stats.counters.messagesReceived == 3)
        #expect(state.checked == 3 && state.mismatched == 0)
        await server.stop()
    }

    /// At top speed a message waits for the previous reply; a reply that does not come within
    /// the timeout ends the copy exactly then: that message timed out, the rest are unsent, and
    /// its sampled reply is a mismatch (it never came).
    @Test func anUnansweredMessageEndsTheCopyAtTheTimeout() async throws {
        let clock = VirtualClock()
        let server = try await TestServer.start { connection in
            while try await connection.read() != nil {}
        }
        let recorded = Self.stream([
            (0, .client, "one\n"), (1, .server, "one\n"), (100, .client, "two\n"), (101, .server, "two\n"), (250, .client, "three\n"),
        ])
        let (replayer, tally) = try Self.replayer(of: recorded, to: server.port, speed: nil, clock: clock)
        let running = Task { await replayer.run() }
        #expect(try await clock.nextDeadline(unlessItEnds: running) == .seconds(5), "the first message's reply is awaited 5 s")
        await clock.advance(to: .seconds(5))
        #expect(await running.value == .timedOut)
        let state = tally.update { $0 }
        #expect(state.stats.counters.messagesSent == 1 && state.stats.counters.timedOut == 1 && state.stats.counters.unsent == 2)
        #expect(state.stats.counters.errors[.timeout] == 1)
        #expect(state.checked == 1 && state.mismatched == 1)
        await server.stop()
    }
}
