import NIOCore
import Recording

/// `--verify-sample` for one copy of a stream: cuts what the target sends into the regions of
/// the sampled messages' replies and compares each region with the recorded reply through a
/// ``ReplayVerifier`` (frame by frame with `--framing`, over ws:// and udp://; else byte for
/// byte), as `replay --verify` compares a whole stream.
///
/// A region is compared once it is complete; at the end of the copy (``finish(sent:)``) the
/// regions of messages that were sent but not (wholly) answered are compared with what came,
/// so a missing reply is a mismatch too. Only the sampled regions' bytes are kept, each until
/// it is compared.
struct SampleChecker {
    private let script: StreamScript
    private let ignore: IgnorePatterns
    /// The sampled messages' numbers, ascending (their regions are too).
    private let sampled: [Int]
    private var cursor = 0
    /// Units received so far.
    private var position = 0
    private var current: ReplayVerifier?

    init(script: StreamScript, ignore: IgnorePatterns) {
        self.script = script
        self.ignore = ignore
        sampled = script.messages.indices.filter { script.messages[$0].sampled }
    }

    /// Feeds one read (a frame, a message or a chunk of bytes); returns the regions it
    /// completed: the message's number and the mismatch (nil: it matched).
    mutating func receive(_ data: ByteBuffer) -> [(Int, ReplayVerifier.Mismatch?)] {
        let end = position + (script.framed ? 1 : data.readableBytes)
        var results: [(Int, ReplayVerifier.Mismatch?)] = []
        while cursor < sampled.count {
            let number = sampled[cursor]
            let message = script.messages[number]
            guard message.replyStart < end else { break }
            let from = max(message.replyStart, position)
            let to = min(message.replyEnd, end)
            if from < to {
                var verifier = current ?? script.verifier(for: number, ignore: ignore)
                if script.framed {
                    verifier.receive(data)
                } else if let slice = data.getSlice(at: data.readerIndex + (from - position), length: to - from) {
                    verifier.receive(slice)
                }
                current = verifier
            }
            guard message.replyEnd <= end else { break }
            results.append((number, complete(number)))
        }
        position = end
        return results
    }

    /// The copy is over after `sent` messages: compares the sampled regions of those not yet
    /// compared with what came of them.
    mutating func finish(sent: Int) -> [(Int, ReplayVerifier.Mismatch?)] {
        var results: [(Int, ReplayVerifier.Mismatch?)] = []
        while cursor < sampled.count, sampled[cursor] < sent {
            results.append((sampled[cursor], complete(sampled[cursor])))
        }
        return results
    }

    /// Ends the current region's comparison and moves to the next sampled message.
    private mutating func complete(_ number: Int) -> ReplayVerifier.Mismatch? {
        var verifier = current ?? script.verifier(for: number, ignore: ignore)
        verifier.finish()
        current = nil
        cursor += 1
        return verifier.mismatch
    }
}
