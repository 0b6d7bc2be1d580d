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
        let started = startThread { [self] in
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
        if !started {
            continuation.finish(throwing: CaptureError(.readFailed, "capture on \(interface) failed: cannot start the capture thread"))
        }
        return stream
    }

    /// Packets the async sequence dropped because its consumer fell `bufferLimit` packets behind.
    package var packetsDroppedByStream: Int {
        streamDrops.load(ordering: .relaxed)
    }
}

/// Runs `body` on a new detached POSIX thread; false if the thread could not be created.
private func startThread(_ body: @escaping @Sendable () -> Void) -> Bool {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(&thread, nil, { argument in
        guard let argument else { return nil }
        Unmanaged<Box>.fromOpaque(argument).takeRetainedValue().body()
        return nil
    }, box)
    guard status == 0 else {
        Unmanaged<Box>.fromOpaque(box).release()
        return false
    }
    pthread_detach(thread)
    return true
}
