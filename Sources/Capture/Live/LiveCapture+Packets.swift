import NativeThreads
import PacketDecoding

import Glibc

extension LiveCapture {
    /// Every packet until ``stop()`` or a read error, as an async sequence; see
    /// ``packetStream(count:bufferLimit:)``.
    public var packets: AsyncThrowingStream<CapturedPacket, any Error> {
        packetStream()
    }

    /// Packets as an async sequence, read by a dedicated thread that copies each one.
    ///
    /// The sequence ends after `count` packets (nil: no limit), when ``stop()`` is called, or
    /// with a ``CaptureError`` when reading fails. Cancelling the consuming task (or dropping the
    /// iterator) stops the capture. At most `bufferLimit` packets wait for the consumer; newer
    /// packets are dropped while the buffer is full and counted in the capture's
    /// ``packetsDroppedByStream`` — the same trade the kernel makes with its ring buffer.
    package func packetStream(count: Int? = nil, bufferLimit: Int = 4096) -> AsyncThrowingStream<CapturedPacket, any Error> {
        let (stream, continuation) = AsyncThrowingStream<CapturedPacket, any Error>.makeStream(
            bufferingPolicy: .bufferingOldest(max(bufferLimit, 1)))
        continuation.onTermination = { [weak self] reason in
            if case .cancelled = reason { self?.stop() }
        }
        let started = NativeThread.start(named: "sockctl-capture", detached: true) { [self] in
            do throws(CaptureError) {
                try run(count: count) { header, bytes in
                    let packet = CapturedPacket(header: header, bytes: Array(bytes))
                    if case .dropped = continuation.yield(packet) {
                        streamDrops.add(1, ordering: .relaxed)
                    }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        if started == nil {
            continuation.finish(throwing: CaptureError(.readFailed, "capture on \(interface) failed: cannot start the capture thread"))
        }
        return stream
    }

    /// Packets the async sequence dropped because its consumer fell `bufferLimit` packets behind.
    package var packetsDroppedByStream: Int {
        streamDrops.load(ordering: .relaxed)
    }
}
