import Foundation
import NIOCore
import PacketDecoding
import Recording
import SocketEngine
import Synchronization
import Testing
import TestSupport

/// `--record`: what the recorder writes, and what it does when the writer cannot keep up.
@Suite(.hangGuard) struct SessionRecorderTests {
    /// A sink the test can hold back, as a slow disk would (the recorder writes from a queue
    /// of its own, where blocking is what a slow write does).
    final class HeldSink: @unchecked Sendable {
        private let condition = NSCondition()
        private var held = false
        private var bytes: [UInt8] = []
        /// Writes that found the sink held, so far.
        let blocked = AsyncMonitor(0)

        func hold() {
            condition.lock()
            held = true
            condition.unlock()
        }

        func release() {
            condition.lock()
            held = false
            condition.broadcast()
            condition.unlock()
        }

        var written: [UInt8] {
            condition.lock()
            defer { condition.unlock() }
            return bytes
        }

        func write(_ chunk: [UInt8]) {
            condition.lock()
            if held { blocked.update { $0 += 1 } }
            while held { condition.wait() }
            bytes += chunk
            condition.unlock()
        }
    }

    static func event(_ recorder: SessionRecorder, _ event: ConnectionRecordEvent, connection: UInt64 = 1) {
        recorder.hook(connection, event)
    }

    static let local = try! SocketAddress(ipAddress: "127.0.0.1", port: 40_000)
    static let remote = try! SocketAddress(ipAddress: "127.0.0.1", port: 7000)

    /// What was recorded reads back as one TCP stream with the bytes each way.
    @Test func aSessionReadsBackAsOneStream() throws {
        let sink = HeldSink()
        let recorder = try SessionRecorder(name: "memory", localIsClient: true, timestamp: { (1_700_000_000, 0) }, sink: { sink.write($0) })
        Self.event(recorder, .opened(local: Self.local, remote: Self.remote, transport: .tcp))
        Self.event(recorder, .sent(ByteBuffer(string: "ping\n")))
        Self.event(recorder, .received(ByteBuffer(string: "pong\n")))
        Self.event(recorder, .finished(.sent))
        Self.event(recorder, .closed)
        let totals = recorder.finish()
        #expect(totals.connections == 1)
        #expect(totals.droppedBytes == 0)
        let streams = try Self.streams(sink.written)
        try #require(streams.count == 1)
        #expect(String(decoding: streams[0].stream(of: .client), as: UTF8.self) == "ping\n")
        #expect(String(decoding: streams[0].stream(of: .server), as: UTF8.self) == "pong\n")
    }

    /// Back-pressure: while the writer is held, data beyond the buffer limit is not kept but
    /// counted, and the file shows those bytes as missing — the stream stays the right length.
    @Test func dataBeyondTheLimitWhileTheWriterIsHeldIsCountedAndShownMissing() async throws {
        let sink = HeldSink()
        let recorder = try SessionRecorder(name: "memory", localIsClient: true, bufferLimit: 1000, timestamp: { (1_700_000_000, 0) }, sink: { sink.write($0) })
        sink.hold()
        Self.event(recorder, .opened(local: Self.local, remote: Self.remote, transport: .tcp))
        // The writer is stuck writing the handshake: everything after waits in the queue.
        try await sink.blocked.wait { $0 >= 1 ? () : nil }
        Self.event(recorder, .sent(ByteBuffer(repeating: 0x61, count: 800)))
        Self.event(recorder, .sent(ByteBuffer(repeating: 0x62, count: 600)))
        Self.event(recorder, .sent(ByteBuffer(repeating: 0x63, count: 100)))
        sink.release()
        Self.event(recorder, .closed)
        let totals = recorder.finish()
        #expect(totals.droppedEvents == 1)
        #expect(totals.droppedBytes == 600)
        let streams = try Self.streams(sink.written)
        try #require(streams.count == 1)
        #expect(streams[0].clientCounters.bytes + streams[0].clientCounters.missingBytes == 1500)
        #expect(streams[0].clientCounters.missingBytes == 600)
    }

    static func streams(_ file: [UInt8]) throws -> [RecordedStream] {
        let reader = try CaptureFileReader(bytes: file)
        var extractor = StreamExtractor(keepingMessagesOf: 1)
        while let record = try reader.next() { try extractor.add(record.header, record.bytes) }
        return extractor.finish()
    }
}
