import NIOCore
import PacketDecoding
import SocketEngine

/// `replay --verify`: compares what the target answers with what the recording's server
/// answered, and describes the first difference.
///
/// Frame by frame (`--framing`, and always for datagrams and WebSocket messages): frame N of
/// the target against frame N of the recording, after every `--ignore` pattern has been cut out
/// of both. As a byte stream (otherwise): byte for byte as the bytes arrive, so a difference is
/// found however the target splits its writes; the "frame" named is then the recording's
/// server segment that holds the first differing byte.
///
/// HTTP frames (`--framing http`) are compared as messages (``HTTPMessage``): the start line,
/// the headers in order, the body de-chunked and the trailers, each side written out as
/// `Name: value` lines before the patterns are cut out, so the default patterns
/// (``IgnorePatterns/httpVolatileHeaders``) remove whole header lines. `Content-Length` and
/// `Transfer-Encoding` are left out of that text: they describe how the body was cut, and the
/// body is compared itself. The mismatch then shows the two messages in that form; a frame that
/// is not an HTTP message is compared as it is.
///
/// Not a mismatch: the target splitting or joining its writes differently (byte stream), or a
/// field matched by `--ignore` having another value or length; for HTTP, chunk sizes and
/// boundaries. A mismatch: different bytes,
/// an extra frame or extra bytes, and — at the end — fewer frames or bytes than recorded.
public struct ReplayVerifier: Sendable {
    /// The first difference between the target's answers and the recording.
    public struct Mismatch: Sendable, Equatable {
        /// 1-based.
        public var frame: Int
        package var expected: [UInt8]
        /// What the target sent in its place (empty when it sent nothing).
        public var received: [UInt8]
        /// Why, in a few words: `differs at byte 9`, `extra frame`, `missing`.
        public var reason: String

        /// A difference at `frame` (1-based): the recorded and the received bytes, and why.
        public init(frame: Int, expected: [UInt8], received: [UInt8], reason: String) {
            self.frame = frame
            self.expected = expected
            self.received = received
            self.reason = reason
        }
    }

    let expected: [ByteBuffer]
    let expectedStream: [UInt8]
    let framed: Bool
    /// Frames are HTTP messages: compared de-chunked (see above).
    let http: Bool
    let ignore: IgnorePatterns
    /// Segment boundaries of the expected stream (byte-stream mode): end offset of each.
    private let segmentEnds: [Int]

    /// Frames from the target so far (framed mode), or recorded segments wholly received
    /// (byte-stream mode).
    public private(set) var framesReceived = 0
    /// Frames, or recorded segments, that matched the recording so far.
    public private(set) var matched = 0
    /// Bytes fed to ``receive(_:)``, up to and including the first mismatch.
    public private(set) var bytesReceived = 0
    /// The first difference found; nil while everything matches.
    public private(set) var mismatch: Mismatch?
    /// Byte-stream mode: the bytes received so far, kept only up to what is needed for a diff.
    private var receivedStream: [UInt8] = []

    /// `framed`: compare frame by frame (frames, datagrams, WebSocket messages), else as one
    /// byte stream; `http`: the frames are HTTP messages, compared as such.
    public init(plan: ReplayPlan, framed: Bool, http: Bool = false, ignore: IgnorePatterns = IgnorePatterns()) {
        expected = plan.expected
        expectedStream = Array(buffer: plan.expectedStream)
        self.framed = framed
        self.http = framed && http
        self.ignore = ignore
        var ends: [Int] = []
        var end = 0
        for segment in plan.expected {
            end += segment.readableBytes
            ends.append(end)
        }
        segmentEnds = ends
    }

    /// The number of units expected: frames, or the recorded segments in byte-stream mode.
    public var expectedFrames: Int { expected.count }

    /// Everything expected has arrived (and nothing differed).
    package var isComplete: Bool {
        framed ? framesReceived >= expected.count : bytesReceived >= expectedStream.count
    }

    /// Feeds one frame (framed mode) or chunk (byte-stream mode) from the target.
    public mutating func receive(_ data: ByteBuffer) {
        guard mismatch == nil else { return }
        bytesReceived += data.readableBytes
        if framed {
            let index = framesReceived
            framesReceived += 1
            let received = http ? comparable(data) : Array(buffer: data)
            guard index < expected.count else {
                mismatch = Mismatch(frame: index + 1, expected: [], received: received, reason: "the recording has only \(plural(expected.count, "frame"))")
                return
            }
            let recorded = comparable(expected[index])
            if let difference = firstDifference(recorded, received) {
                mismatch = Mismatch(frame: index + 1, expected: recorded, received: received, reason: difference)
            } else {
                matched += 1
            }
            return
        }
        let start = receivedStream.count
        receivedStream += Array(buffer: data)
        for offset in start..<receivedStream.count {
            guard offset < expectedStream.count else {
                report(at: offset, reason: "\(plural(receivedStream.count - expectedStream.count, "byte")) more than the recording's \(expectedStream.count)")
                return
            }
            if expectedStream[offset] != receivedStream[offset] {
                report(at: offset, reason: "differs at byte \(offset - segmentStart(containing: offset)) (stream offset \(offset))")
                return
            }
        }
        matched = segmentEnds.prefix { $0 <= receivedStream.count }.count
        framesReceived = matched
    }

    /// The target is done (closed, or quiet for too long): anything still missing is a mismatch.
    public mutating func finish() {
        guard mismatch == nil else { return }
        if framed {
            if framesReceived < expected.count {
                mismatch = Mismatch(
                    frame: framesReceived + 1, expected: comparable(expected[framesReceived]), received: [],
                    reason: "the target sent \(plural(framesReceived, "frame")) of \(expected.count)"
                )
            }
        } else if receivedStream.count < expectedStream.count {
            report(at: receivedStream.count, reason: "the target sent \(receivedStream.count) of \(expectedStream.count) bytes")
        }
    }

    private func segmentStart(containing offset: Int) -> Int {
        let index = segmentEnds.firstIndex { $0 > offset } ?? max(0, segmentEnds.count - 1)
        return index == 0 ? 0 : segmentEnds[index - 1]
    }

    private mutating func report(at offset: Int, reason: String) {
        let index = segmentEnds.firstIndex { $0 > offset } ?? segmentEnds.count
        let start = index == 0 ? 0 : segmentEnds[index - 1]
        let end = index < segmentEnds.count ? segmentEnds[index] : max(start, receivedStream.count)
        let recorded = Array(expectedStream[min(start, expectedStream.count)..<min(end, expectedStream.count)])
        let received = Array(receivedStream[min(start, receivedStream.count)..<min(max(end, start), receivedStream.count)])
        mismatch = Mismatch(frame: index + 1, expected: recorded, received: received, reason: reason)
    }

    /// A frame as it is compared: its bytes, or for HTTP the message's text (see the type's notes).
    private func comparable(_ frame: ByteBuffer) -> [UInt8] {
        guard http, let message = try? HTTPMessage(parsing: frame) else { return Array(buffer: frame) }
        var text = Array(message.startLine.utf8) + [0x0D, 0x0A]
        func fields(_ fields: [(name: String, value: String)]) {
            for field in fields {
                let name = field.name.lowercased()
                guard name != "content-length" && name != "transfer-encoding" else { continue }
                text += field.name.utf8
                text += ": ".utf8
                text += field.value.utf8
                text += [0x0D, 0x0A]
            }
        }
        fields(message.headers)
        text += [0x0D, 0x0A]
        text += message.body.readableBytesView
        if !message.trailers.isEmpty {
            text += [0x0D, 0x0A]
            fields(message.trailers)
        }
        return text
    }

    /// nil when equal after `--ignore`; else a short description.
    private func firstDifference(_ recorded: [UInt8], _ received: [UInt8]) -> String? {
        if ignore.isEmpty {
            if recorded == received { return nil }
        } else if ignore.masked(recorded) == ignore.masked(received) {
            return nil
        }
        let common = zip(recorded, received).prefix { $0 == $1 }.count
        if common == min(recorded.count, received.count) {
            return "\(plural(received.count, "byte")) instead of \(recorded.count)"
        }
        return "differs at byte \(common)"
    }

    /// The mismatch report: a header line and the two sides' `tcpdump -X` lines next to each
    /// other, `|` between lines that are the same and `!` where they differ.
    public static func render(_ mismatch: Mismatch, target: String, unit: String = "frame") -> String {
        var out = "mismatch in \(unit) \(mismatch.frame): \(mismatch.reason)\n"
        let left = lines(mismatch.expected)
        let right = lines(mismatch.received)
        let width = 67
        func pad(_ text: String) -> String {
            text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
        }
        out += "  " + pad("recorded (\(plural(mismatch.expected.count, "byte")))") + "    received from \(target) (\(plural(mismatch.received.count, "byte")))\n"
        for row in 0..<max(left.count, right.count, 1) {
            let l = row < left.count ? left[row] : ""
            let r = row < right.count ? right[row] : ""
            let marker = l == r ? "|" : "!"
            out += "  " + pad(l.isEmpty ? "(nothing)" : l) + "  \(marker) " + (r.isEmpty ? "(nothing)" : r) + "\n"
        }
        return out
    }

    /// `-X` lines without the leading newline and tab.
    private static func lines(_ bytes: [UInt8]) -> [String] {
        HexDump.hexAndASCII(bytes).split(separator: "\n").map { line in
            String(line.drop { $0 == "\t" })
        }
    }
}
