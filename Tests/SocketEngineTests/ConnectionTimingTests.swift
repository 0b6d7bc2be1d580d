import NIOCore
import NIOEmbedded
import Synchronization
import TestSupport
import Testing
@testable import SocketEngine

/// A connection's own timers and back-pressure on an `NIOAsyncTestingChannel`: its event loop's
/// time moves only when the test advances it, and "the socket" is the test, so read timeouts,
/// write timeouts, delayed answers and held reads are checked at exact instants.
@Suite(.hangGuard)
struct ConnectionTimingTests {
    /// Counts the reads that reach "the socket" (what the handler lets through).
    final class ReadCounter: ChannelOutboundHandler, Sendable {
        typealias OutboundIn = Any
        let count = Atomic<Int>(0)
        func read(context: ChannelHandlerContext) {
            count.wrappingAdd(1, ordering: .relaxed)
            context.read()
        }
    }

    /// A socket whose writes never complete (a peer that reads nothing); they fail on close.
    final class StallingWriter: ChannelOutboundHandler, @unchecked Sendable {
        typealias OutboundIn = IOData
        let held = AsyncMonitor(0)
        private var promises: [EventLoopPromise<Void>] = []
        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if let promise { promises.append(promise) }
            held.update { $0 += 1 }
        }
        func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
            let waiting = promises
            promises.removeAll()
            waiting.forEach { $0.fail(ChannelError.ioOnClosedChannel) }
            context.close(mode: mode, promise: promise)
        }
    }

    /// What a queued read came to (nil while it waits).
    final class Outcome: Sendable {
        let result = Mutex<Result<ByteBuffer?, any Error>?>(nil)
        var value: Result<ByteBuffer?, any Error>? { result.withLock { $0 } }
    }

    struct Fixture {
        let channel: NIOAsyncTestingChannel
        let connection: Connection
        let handler: NIOLoopBound<ConnectionHandler>
        let reads = ReadCounter()
        var loop: NIOAsyncTestingEventLoop { channel.testingEventLoop }

        init(bufferLimit: Int = Connection.defaultBufferLimit, socket: (any ChannelHandler & Sendable)? = nil) async throws {
            let channel = NIOAsyncTestingChannel()
            self.channel = channel
            let reads = self.reads
            try await channel.testingEventLoop.executeInContext {
                try channel.pipeline.syncOperations.addHandler(reads)
                if let socket { try channel.pipeline.syncOperations.addHandler(socket) }
                let setup = ConnectionSetup(bufferLimit: bufferLimit, tap: nil, recorder: nil, clock: .system)
                try Connection.prepare(channel, transport: .tcp, setup: setup)
            }
            try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 7000)).get()
            (connection, handler) = try await channel.testingEventLoop.executeInContext {
                let handler = try channel.pipeline.syncOperations.handler(type: ConnectionHandler.self)
                return (Connection.attach(to: channel, handler: handler, transport: .tcp), NIOLoopBound(handler, eventLoop: channel.eventLoop))
            }
        }

        func advance(toMilliseconds milliseconds: Int64) async {
            await loop.advanceTime(to: .uptimeNanoseconds(UInt64(milliseconds) * 1_000_000))
        }

        /// Queues a read on the loop, as ``Connection/read(_:timeout:)`` does; its outcome lands
        /// in the returned box.
        func enqueue(_ request: ReadRequest, timeout: TimeAmount?, id: UInt64) async throws -> Outcome {
            let box = Outcome()
            let handler = self.handler
            let loop = channel.eventLoop
            try await self.loop.executeInContext {
                let promise = loop.makePromise(of: ByteBuffer?.self)
                promise.futureResult.whenComplete { result in box.result.withLock { $0 = result } }
                handler.value.enqueue(id: id, decoder: request.decoder, timeout: timeout, promise: promise)
            }
            return box
        }
    }

    @Test func aReadTimesOutExactlyAtItsTimeoutAndKeepsWhatArrived() async throws {
        let fixture = try await Fixture()
        let first = try await fixture.enqueue(.exactly(10), timeout: .milliseconds(200), id: 1)
        try await fixture.channel.writeInbound(ByteBuffer(string: "12345"))
        await fixture.advance(toMilliseconds: 199)
        #expect(first.value == nil, "still waiting at 199 ms")
        await fixture.advance(toMilliseconds: 200)
        let outcome = try #require(first.value)
        #expect(throws: SocketEngineError.self) { _ = try outcome.get() }
        if case .failure(let error as SocketEngineError) = outcome {
            #expect(error.code == .readTimeout)
            #expect(error.message == "127.0.0.1:7000: no data within 200ms")
        }
        let second = try await fixture.enqueue(.exactly(10), timeout: nil, id: 2)
        try await fixture.channel.writeInbound(ByteBuffer(string: "67890"))
        await fixture.loop.run()
        #expect(try second.value?.get().map { String(buffer: $0) } == "1234567890")
    }

    @Test func aWriteThePeerNeverTakesTimesOutExactlyAndClosesTheConnection() async throws {
        let socket = StallingWriter()
        let fixture = try await Fixture(socket: socket)
        let connection = fixture.connection
        let writing = Task { try await connection.write(ByteBuffer(string: "never taken"), timeout: .milliseconds(300)) }
        // The write reached the socket: its timer runs from this moment of the loop's time (0).
        try await socket.held.wait { $0 >= 1 ? () : nil }
        await fixture.advance(toMilliseconds: 299)
        #expect(fixture.channel.isActive, "still open at 299 ms")
        await fixture.advance(toMilliseconds: 300)
        // The timer fired on the loop as time reached 300 ms: closed now (else the write would
        // never end, and the test would wait for its hang guard).
        try #require(!fixture.channel.isActive, "closed at 300 ms")
        await #expect {
            try await finished(writing)
        } throws: { ($0 as? SocketEngineError)?.message == "127.0.0.1:7000: write not completed within 300ms" }
    }

    /// Back-pressure: once the buffer holds `bufferLimit` bytes nobody has read, the handler
    /// stops asking the socket for more; a read that takes them lets reading resume.
    @Test func readsStopAtTheBufferLimitAndResumeWhenTheApplicationReads() async throws {
        let fixture = try await Fixture(bufferLimit: 1000)
        fixture.channel.read()
        await fixture.loop.run()
        #expect(fixture.reads.count.load(ordering: .relaxed) == 1)
        try await fixture.channel.writeInbound(ByteBuffer(repeating: 0x61, count: 600))
        fixture.channel.read()
        await fixture.loop.run()
        #expect(fixture.reads.count.load(ordering: .relaxed) == 2, "600 of 1000 bytes: still reading")
        try await fixture.channel.writeInbound(ByteBuffer(repeating: 0x62, count: 600))
        fixture.channel.read()
        await fixture.loop.run()
        #expect(fixture.reads.count.load(ordering: .relaxed) == 2, "1200 bytes unread: the read is held")
        let taken = try await fixture.enqueue(.available(maxLength: 4096), timeout: nil, id: 1)
        await fixture.loop.run()
        #expect(try taken.value?.get()?.readableBytes == 1200)
        #expect(fixture.reads.count.load(ordering: .relaxed) == 3, "the held read went through once the bytes were taken")
    }

    /// Regression: reading paused one byte too early for a line whose CR sits exactly at the
    /// frame limit, so the LF that completes a valid frame was never read.
    @Test func aLineWhoseCRReachesTheFrameLimitKeepsReading() async throws {
        let fixture = try await Fixture(bufferLimit: 100)
        let line = try await fixture.enqueue(.frame(.line, maxFrameSize: 1000), timeout: nil, id: 1)
        var head = ByteBuffer(repeating: 0x61, count: 1000)
        head.writeString("\r")
        try await fixture.channel.writeInbound(head)
        fixture.channel.read()
        await fixture.loop.run()
        #expect(fixture.reads.count.load(ordering: .relaxed) == 1, "the LF that completes the frame must still be read")
        try await fixture.channel.writeInbound(ByteBuffer(string: "\n"))
        await fixture.loop.run()
        #expect(try line.value?.get()?.readableBytes == 1000)
    }

    /// `listen --delay`: each message is answered its delay after it arrived, so twenty
    /// pipelined requests are all answered at 100 ms (not 2 s), and one arriving at 150 ms at
    /// 250 ms.
    @Test func delayedAnswersCountFromEachMessagesArrival() async throws {
        let fixture = try await Fixture()
        let handler = fixture.handler
        let loop = fixture.channel.eventLoop
        try await fixture.loop.executeInContext {
            handler.value.answerAll(
                decoder: FrameDecoder(framing: .line, maximumFrameSize: 1024), delay: .milliseconds(100), promise: loop.makePromise()
            ) { (message: ByteBuffer) throws(SocketEngineError) -> Answer in Answer(try Framing.line.encode(message)) }
        }
        try await fixture.channel.writeInbound(ByteBuffer(string: (1...20).map { "request \($0)\n" }.joined()))
        await fixture.advance(toMilliseconds: 99)
        #expect(try await Self.written(fixture.channel) == "")
        await fixture.advance(toMilliseconds: 100)
        #expect(try await Self.written(fixture.channel) == (1...20).map { "request \($0)\n" }.joined())
        await fixture.advance(toMilliseconds: 150)
        try await fixture.channel.writeInbound(ByteBuffer(string: "late\n"))
        await fixture.advance(toMilliseconds: 249)
        #expect(try await Self.written(fixture.channel) == "")
        await fixture.advance(toMilliseconds: 250)
        #expect(try await Self.written(fixture.channel) == "late\n")
    }

    /// Fairness: at most ``ReadBurst/messageLimit`` frames are answered per turn of the loop,
    /// their answers joined into one write; the rest wait for the loop's next turn, and the
    /// socket is not read until they are answered.
    @Test func answersComeInBurstsAndTheSocketIsNotReadUntilTheBacklogIsAnswered() async throws {
        let fixture = try await Fixture()
        let handler = fixture.handler
        let loop = fixture.channel.eventLoop
        try await fixture.loop.executeInContext {
            handler.value.answerAll(
                decoder: FrameDecoder(framing: .line, maximumFrameSize: 1024), delay: nil, promise: loop.makePromise()
            ) { (message: ByteBuffer) throws(SocketEngineError) -> Answer in Answer(try Framing.line.encode(message)) }
        }
        let limit = ReadBurst.messageLimit
        let lines = (1...(2 * limit + 10)).map { "m\($0)\n" }
        try await fixture.channel.writeInbound(ByteBuffer(string: lines.joined()))
        #expect(try await Self.writes(fixture.channel) == [lines[0..<limit].joined()], "one burst, one write")
        let channel = fixture.channel
        try await fixture.loop.executeInContext { channel.pipeline.read() }
        #expect(fixture.reads.count.load(ordering: .relaxed) == 0, "held while frames wait")
        await fixture.loop.run()
        #expect(try await Self.writes(fixture.channel) == [lines[limit..<(2 * limit)].joined(), lines[(2 * limit)...].joined()])
        #expect(fixture.reads.count.load(ordering: .relaxed) == 1, "the held read went through once the backlog was answered")
    }

    /// Each write to "the socket" since the last look.
    static func writes(_ channel: NIOAsyncTestingChannel) async throws -> [String] {
        var writes: [String] = []
        while let data = try await channel.readOutbound(as: IOData.self) {
            // (Empty writes are the flushes.)
            if case .byteBuffer(let buffer) = data, buffer.readableBytes > 0 { writes.append(String(buffer: buffer)) }
        }
        return writes
    }

    /// Everything written to "the socket" since the last look.
    static func written(_ channel: NIOAsyncTestingChannel) async throws -> String {
        var text = ""
        while let data = try await channel.readOutbound(as: IOData.self) {
            if case .byteBuffer(let buffer) = data { text += String(buffer: buffer) }
        }
        return text
    }
}
