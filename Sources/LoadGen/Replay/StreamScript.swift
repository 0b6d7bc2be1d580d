import NIOCore
import PacketDecoding
import Recording
import SocketEngine

/// One recorded stream as `loadtest --from-pcap` plays it: the client's messages with their
/// recorded times (from the ``ReplayPlan``) and, for each, the reply it waits for.
///
/// A message's reply is what the recorded server sent after it and before the client's next
/// message (by capture time), counted in units: bytes as a byte stream, frames with
/// `--framing`, messages or datagrams over ws://, wss:// and udp://. So message `i` is
/// answered once the target has sent as many units as the recording's server had sent by the
/// end of reply `i`:
///
/// ```
/// recording:  c "A\n" @5ms   s "a\n" @6ms   c "B\n" @9ms   c "C\n" @9ms   s "b\nc\n" @12ms
/// --framing line: message 1 "A\n" → reply frames [0, 1)   message 2 "B\n" → [1, 1) (no reply)
///                 message 3 "C\n" → reply frames [1, 3)
/// ```
///
/// What the server sent before the first message (a greeting) belongs to the first message's
/// reply. Messages recorded at the same instant share the reply that follows: the last of them
/// waits for it, the others expect none (they count as answered when sent, with no latency).
struct StreamScript: Sendable {
    /// One client message and the units of the target's output that answer it.
    struct Message: Sendable {
        /// From the start of the stream, as recorded.
        var due: Duration
        var bytes: ByteBuffer
        /// Units received before this message's reply begins, and once it is complete.
        var replyStart: Int
        var replyEnd: Int
        /// The recorded reply: indexes into ``StreamScript/expected``.
        var expectedRange: Range<Int>
        /// `--verify-sample` compares this message's reply with the recording.
        var sampled: Bool

        var expectsReply: Bool { replyEnd > replyStart }
    }

    /// The stream's number in the capture (as `replay --list` prints it).
    let index: Int
    /// When the stream began, from the start of the first stream replayed.
    let start: Duration
    let messages: [Message]
    /// The recorded server's units of comparison (``ReplayPlan``'s expected answers).
    let expected: [ByteBuffer]
    /// Units are frames, messages or datagrams (else bytes).
    let framed: Bool
    /// The recorded client half-closed: when, and how many units the server had sent by then.
    let finish: (at: Duration, unitsBefore: Int)?
    /// Units the recorded server sent in all.
    let totalUnits: Int

    /// The script of `stream` (whose messages were extracted), starting `start` after the first
    /// stream replayed.
    init(stream: RecordedStream, start: Duration, framing: Framing?, messageTarget: Bool, maximumFrameSize: Int, sample: VerifySample?) throws(RecordingError) {
        let plan = try ReplayPlan(stream: stream, framing: framing, messageTarget: messageTarget, maximumFrameSize: maximumFrameSize)
        index = stream.index
        self.start = start
        expected = plan.expected
        framed = framing != nil || messageTarget || stream.transport == .udp
        // The end (in units) of each expected unit.
        var ends: [Int] = []
        var total = 0
        for unit in plan.expected {
            total += framed ? 1 : unit.readableBytes
            ends.append(total)
        }
        totalUnits = total
        // Unit j answers the last message recorded at or before it (a greeting: the first).
        var messages: [Message] = []
        var unit = 0
        for (number, send) in plan.sends.enumerated() {
            let next = number + 1 < plan.sends.count ? plan.sends[number + 1].due : nil
            let first = unit
            while unit < plan.expected.count, unit < plan.expectedDue.count, next.map({ plan.expectedDue[unit] < $0 }) ?? true { unit += 1 }
            let range = first..<unit
            let replyStart = first == 0 ? 0 : ends[first - 1]
            let replyEnd = unit == 0 ? 0 : ends[unit - 1]
            messages.append(Message(
                due: send.due, bytes: send.bytes, replyStart: number == 0 ? 0 : replyStart, replyEnd: replyEnd,
                expectedRange: range, sampled: !range.isEmpty && (sample?.picks(stream: stream.index, message: number) ?? false)
            ))
        }
        self.messages = messages
        if let at = plan.clientFinishedAt, stream.transport == .tcp, !messageTarget {
            let before = plan.expectedDue.prefix { $0 <= at }.count
            finish = (at, before == 0 ? 0 : ends[before - 1])
        } else {
            finish = nil
        }
    }

    /// A verifier for message `number`'s recorded reply, fed with what the target sent in its
    /// place.
    func verifier(for number: Int, ignore: IgnorePatterns) -> ReplayVerifier {
        let range = messages[number].expectedRange
        return ReplayVerifier(plan: ReplayPlan(sends: [], expected: Array(expected[range])), framed: framed, ignore: ignore)
    }
}
