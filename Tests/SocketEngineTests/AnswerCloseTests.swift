import NIOCore
import Synchronization
import NIOEmbedded
import TestSupport
import Testing
@testable import SocketEngine

/// An answer that asks for the connection to end (``Answer/closeAfter``, as an HTTP response to
/// `Connection: close` does): it is written, after every answer before it, then the connection
/// closes and what arrived after it is never answered. Checked on an `NIOAsyncTestingChannel`
/// in virtual time.
@Suite(.hangGuard)
struct AnswerCloseTests {
    /// A socket that shuts down its sending side on `close(mode: .output)` (an embedded channel
    /// would close altogether): the shutdown is noted, the channel stays open.
    final class HalfClosingSocket: ChannelOutboundHandler, Sendable {
        typealias OutboundIn = IOData
        let outputClosed = Mutex(false)
        func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
            guard mode == .output else { return context.close(mode: mode, promise: promise) }
            outputClosed.withLock { $0 = true }
            promise?.succeed(())
        }
    }

    /// Echoes each line; the line "bye" asks for the close.
    static func answerLines(_ message: ByteBuffer) throws(SocketEngineError) -> Answer {
        Answer(try Framing.line.encode(message), closeAfter: String(buffer: message) == "bye")
    }

    /// Starts answering with `delay`; returns the promise answering completes.
    static func startAnswering(_ fixture: ConnectionTimingTests.Fixture, delay: TimeAmount?) async throws -> EventLoopFuture<Void> {
        let handler = fixture.handler
        let loop = fixture.channel.eventLoop
        return try await fixture.loop.executeInContext {
            let promise = loop.makePromise(of: Void.self)
            handler.value.answerAll(
                decoder: FrameDecoder(framing: .line, maximumFrameSize: 1024), delay: delay, promise: promise,
                answer: Self.answerLines
            )
            return promise.futureResult
        }
    }

    @Test func theAnswerThatClosesIsWrittenThenTheConnectionCloses() async throws {
        let fixture = try await ConnectionTimingTests.Fixture()
        let done = try await Self.startAnswering(fixture, delay: nil)
        try await fixture.channel.writeInbound(ByteBuffer(string: "one\nbye\nnever\n"))
        await fixture.loop.run()
        #expect(try await ConnectionTimingTests.written(fixture.channel) == "one\nbye\n")
        try await done.get()
        #expect(!fixture.channel.isActive)
    }

    @Test func aDelayedAnswerThatClosesClosesOnlyOnceWritten() async throws {
        let fixture = try await ConnectionTimingTests.Fixture()
        let done = try await Self.startAnswering(fixture, delay: .milliseconds(100))
        try await fixture.channel.writeInbound(ByteBuffer(string: "one\nbye\nnever\n"))
        await fixture.advance(toMilliseconds: 99)
        #expect(try await ConnectionTimingTests.written(fixture.channel) == "")
        #expect(fixture.channel.isActive)
        await fixture.advance(toMilliseconds: 100)
        #expect(try await ConnectionTimingTests.written(fixture.channel) == "one\nbye\n")
        try await done.get()
        #expect(!fixture.channel.isActive)
    }

    /// A frame over the limit gets the last words for its error (an HTTP 413), after the
    /// answers before it; then the connection closes and answering fails with the error.
    @Test func aStreamThatCannotBeCutGetsItsLastWordsThenCloses() async throws {
        let socket = HalfClosingSocket()
        let fixture = try await ConnectionTimingTests.Fixture(socket: socket)
        let handler = fixture.handler
        let loop = fixture.channel.eventLoop
        let done = try await fixture.loop.executeInContext {
            let promise = loop.makePromise(of: Void.self)
            handler.value.answerAll(
                decoder: FrameDecoder(framing: .line, maximumFrameSize: 8), delay: nil, promise: promise,
                lastWords: { error in ByteBuffer(string: "refused: \(error.code.name)\n") },
                answer: Self.answerLines
            )
            return promise.futureResult
        }
        try await fixture.channel.writeInbound(ByteBuffer(string: "ok\nfar too long a line\n"))
        await fixture.loop.run()
        #expect(try await ConnectionTimingTests.written(fixture.channel) == "ok\nrefused: frame-too-large\n")
        // A lingering close: what the client still sends is dropped, unanswered, until the
        // loop timer ends it. The sending side is shut down at once (the client reads an end).
        #expect(fixture.channel.isActive)
        #expect(socket.outputClosed.withLock { $0 })
        try await fixture.channel.writeInbound(ByteBuffer(string: "more of the same\n"))
        await fixture.loop.run()
        #expect(try await ConnectionTimingTests.written(fixture.channel) == "")
        await fixture.loop.advanceTime(by: LingeringClose.maximumTime - .milliseconds(1))
        #expect(fixture.channel.isActive)
        await fixture.loop.advanceTime(by: .milliseconds(1))
        await #expect(throws: SocketEngineError.self) { try await done.get() }
        #expect(!fixture.channel.isActive)
    }

    /// The lingering close after last words also ends once more than
    /// ``LingeringClose/maximumBytes`` have been dropped, before its timer.
    @Test func lingeringAfterLastWordsIsBoundedByBytes() async throws {
        let fixture = try await ConnectionTimingTests.Fixture(socket: HalfClosingSocket())
        let handler = fixture.handler
        let loop = fixture.channel.eventLoop
        let done = try await fixture.loop.executeInContext {
            let promise = loop.makePromise(of: Void.self)
            handler.value.answerAll(
                decoder: FrameDecoder(framing: .line, maximumFrameSize: 8), delay: nil, promise: promise,
                lastWords: { error in ByteBuffer(string: "refused: \(error.code.name)\n") },
                answer: Self.answerLines
            )
            return promise.futureResult
        }
        try await fixture.channel.writeInbound(ByteBuffer(string: "far too long a line\n"))
        await fixture.loop.run()
        #expect(try await ConnectionTimingTests.written(fixture.channel) == "refused: frame-too-large\n")
        let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: 1024 * 1024)
        for _ in 0..<(LingeringClose.maximumBytes / chunk.readableBytes) {
            try await fixture.channel.writeInbound(chunk)
            await fixture.loop.run()
        }
        #expect(fixture.channel.isActive, "exactly the bound: still lingering")
        try await fixture.channel.writeInbound(ByteBuffer(string: "x"))
        await fixture.loop.run()
        await #expect(throws: SocketEngineError.self) { try await done.get() }
        #expect(!fixture.channel.isActive)
    }
}
