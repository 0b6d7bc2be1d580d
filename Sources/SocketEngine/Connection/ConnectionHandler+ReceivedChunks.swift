import NIOCore

import Glibc

extension ConnectionHandler {
    /// Received bytes of a stream connection not yet read, as the chunks they arrived in: a read
    /// of whatever is available hands a chunk out without copying; tiny chunks are coalesced as
    /// they arrive, and chunks are joined only when a frame spans them.
    struct ReceivedChunks {
        /// Chunks smaller than this are copied onto the previous one, so a peer dribbling tiny
        /// segments costs memory for its bytes, not one allocation per segment.
        static let smallChunk = 8 * 1024
        static let coalescedChunk = 64 * 1024

        private var chunks = CircularBuffer<ByteBuffer>()
        /// Bytes in the chunks.
        private(set) var buffered = 0
        /// Chunks after the first that are known to hold no byte ending the pending delimiter.
        private var scannedChunks = 0

        /// A new decoder takes over: the chunks must be searched again.
        mutating func restartSearch() {
            scannedChunks = 0
        }

        /// The first chunk: once ``decodeNext(_:atEOF:)`` has found no whole frame, the start of
        /// the next frame as far as it has come (the chunks are joined while it looks).
        var front: ByteBuffer? { chunks.first }

        /// Drops every chunk.
        mutating func removeAll() {
            chunks.removeAll()
            buffered = 0
            scannedChunks = 0
        }

        /// Hands every chunk over, in order, and empties the buffer.
        mutating func takeAll() -> CircularBuffer<ByteBuffer> {
            defer {
                chunks = CircularBuffer()
                buffered = 0
                scannedChunks = 0
            }
            return chunks
        }

        mutating func append(_ chunk: ByteBuffer) {
            buffered += chunk.readableBytes
            let lastIndex = chunks.index(before: chunks.endIndex)
            if chunk.readableBytes < Self.smallChunk, !chunks.isEmpty,
               chunks[lastIndex].readableBytes + chunk.readableBytes <= Self.coalescedChunk {
                chunks[lastIndex].writeImmutableBuffer(chunk)
                // The last chunk changed: it must be searched again.
                scannedChunks = min(scannedChunks, max(0, chunks.count - 2))
            } else {
                chunks.append(chunk)
            }
        }

        /// Runs `decoder` over the received chunks. Chunks are joined only once the decoder's need
        /// is met — all the bytes a counted frame needs, or a chunk holding a delimiter byte — and
        /// then in one exactly sized copy, so waiting for a frame never holds more than its bytes.
        mutating func decodeNext(_ decoder: inout FrameDecoder, atEOF: Bool) throws(SocketEngineError) -> ByteBuffer? {
            while true {
                guard var first = chunks.first else {
                    var empty = ByteBuffer()
                    return try decoder.decode(&empty, atEOF: atEOF)
                }
                let isLast = chunks.count == 1
                let before = first.readableBytes
                let frame: ByteBuffer?
                do {
                    frame = try decoder.decode(&first, atEOF: atEOF && isLast)
                } catch {
                    chunks[chunks.startIndex] = first
                    throw error
                }
                buffered -= before - first.readableBytes
                if first.readableBytes == 0 {
                    chunks.removeFirst()
                } else {
                    chunks[chunks.startIndex] = first
                }
                if let frame {
                    scannedChunks = 0
                    return frame
                }
                if isLast || first.readableBytes == 0 { return nil }

                // More chunks are queued behind a first chunk that is not enough on its own.
                let joinThrough: Int
                switch atEOF ? .more : decoder.need(after: first) {
                case .more:
                    joinThrough = atEOF ? chunks.count - 1 : 1
                case .bytes(let needed):
                    guard buffered >= needed else { return nil }
                    join(through: chunks.count - 1, upTo: needed)
                    continue
                case .delimiterByte(let byte):
                    // Search only chunks not searched before (each chunk once per frame).
                    let firstUnsearched = min(chunks.count, 1 + scannedChunks)
                    guard let holder = (firstUnsearched..<chunks.count).first(where: {
                        chunks[chunks.index(chunks.startIndex, offsetBy: $0)].withUnsafeReadableBytes { raw in
                            raw.baseAddress.map { memchr($0, Int32(byte), raw.count) != nil } ?? false
                        }
                    }) else {
                        scannedChunks = chunks.count - 1
                        if let overflow = decoder.delimiterOverflow, buffered > overflow {
                            throw decoder.tooLong(buffered)
                        }
                        return nil
                    }
                    joinThrough = holder
                }
                join(through: joinThrough, upTo: nil)
            }
        }

        /// Joins chunks 1…`last` onto the first, reserving the final size once; with `limit`,
        /// takes only as many bytes as make the first chunk `limit` long.
        private mutating func join(through last: Int, upTo limit: Int?) {
            guard last >= 1, var first = chunks.first else { return }
            scannedChunks = 0
            var total = first.readableBytes
            for offset in 1...last {
                total += chunks[chunks.index(chunks.startIndex, offsetBy: offset)].readableBytes
            }
            let target = limit.map { min($0, total) } ?? total
            var joined = ByteBufferAllocator().buffer(capacity: target)
            joined.writeImmutableBuffer(first)
            chunks.removeFirst()
            while joined.readableBytes < target, var next = chunks.first {
                let take = min(next.readableBytes, target - joined.readableBytes)
                if take == next.readableBytes {
                    joined.writeImmutableBuffer(next)
                    chunks.removeFirst()
                } else if let piece = next.readSlice(length: take) {
                    joined.writeImmutableBuffer(piece)
                    chunks[chunks.startIndex] = next
                }
            }
            first = joined
            chunks.prepend(first)
        }
    }
}
