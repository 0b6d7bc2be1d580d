import NIOCore
import PacketDecoding
import Recording
import Testing
import TestSupport

/// `replay --verify`'s comparison on its own: frames, byte streams however they are cut, the
/// `--ignore` patterns, and every kind of difference.
@Suite(.hangGuard) struct ReplayVerifierTests {
    static func plan(_ expected: [String]) -> ReplayPlan {
        ReplayPlan(sends: [], expected: expected.map { ByteBuffer(string: $0) })
    }

    @Test func framesThatMatchAreCountedAndCompleteTheRun() {
        var verifier = ReplayVerifier(plan: Self.plan(["a", "bc"]), framed: true)
        verifier.receive(ByteBuffer(string: "a"))
        #expect(!verifier.isComplete)
        verifier.receive(ByteBuffer(string: "bc"))
        verifier.finish()
        #expect(verifier.isComplete && verifier.matched == 2 && verifier.mismatch == nil)
    }

    @Test func theFirstDifferingFrameIsNamedWithWhere() {
        var verifier = ReplayVerifier(plan: Self.plan(["hello world", "x"]), framed: true)
        verifier.receive(ByteBuffer(string: "hello there"))
        #expect(verifier.mismatch == ReplayVerifier.Mismatch(frame: 1, expected: Array("hello world".utf8), received: Array("hello there".utf8), reason: "differs at byte 6"))
        // After a mismatch nothing more is compared.
        verifier.receive(ByteBuffer(string: "x"))
        #expect(verifier.matched == 0)
    }

    @Test func aShorterOrLongerFrameAndExtraOrMissingFramesAreMismatches() {
        var short = ReplayVerifier(plan: Self.plan(["abc"]), framed: true)
        short.receive(ByteBuffer(string: "ab"))
        #expect(short.mismatch?.reason == "2 bytes instead of 3")
        var extra = ReplayVerifier(plan: Self.plan(["a"]), framed: true)
        extra.receive(ByteBuffer(string: "a"))
        extra.receive(ByteBuffer(string: "b"))
        #expect(extra.mismatch?.frame == 2)
        #expect(extra.mismatch?.reason == "the recording has only 1 frame")
        var missing = ReplayVerifier(plan: Self.plan(["a", "b"]), framed: true)
        missing.receive(ByteBuffer(string: "a"))
        missing.finish()
        #expect(missing.mismatch?.reason == "the target sent 1 frame of 2")
    }

    /// A byte stream compares the same however the target cuts its writes.
    @Test func aByteStreamMatchesWhateverTheCuts() {
        var verifier = ReplayVerifier(plan: Self.plan(["GET /\r\n", "Host: x\r\n\r\n"]), framed: false)
        for byte in Array("GET /\r\nHost: x\r\n\r\n".utf8) { verifier.receive(ByteBuffer(bytes: [byte])) }
        verifier.finish()
        #expect(verifier.mismatch == nil)
        #expect(verifier.matched == 2)
    }

    @Test func aByteStreamNamesTheRecordedSegmentThatDiffers() {
        var verifier = ReplayVerifier(plan: Self.plan(["abc", "def"]), framed: false)
        verifier.receive(ByteBuffer(string: "abcdXf"))
        #expect(verifier.mismatch?.frame == 2)
        #expect(verifier.mismatch?.reason == "differs at byte 1 (stream offset 4)")
    }

    @Test func ignoredTextIsCutFromBothSides() throws {
        let ignore = try IgnorePatterns(parsing: [#""ts":[0-9]+"#])
        var verifier = ReplayVerifier(plan: Self.plan([#"{"ok":true,"ts":1700000000}"#]), framed: true, ignore: ignore)
        verifier.receive(ByteBuffer(string: #"{"ok":true,"ts":42}"#))
        #expect(verifier.mismatch == nil)
        #expect(throws: RecordingError.self) { try IgnorePatterns(parsing: ["("]) }
    }

    @Test func theReportShowsBothSidesInTheTcpdumpLayout() {
        let mismatch = ReplayVerifier.Mismatch(frame: 2, expected: Array("hello world".utf8), received: Array("ping".utf8), reason: "differs at byte 0")
        let text = ReplayVerifier.render(mismatch, target: "127.0.0.1:7000")
        #expect(text.hasPrefix("mismatch in frame 2: differs at byte 0\n"))
        #expect(text.contains("received from 127.0.0.1:7000 (4 bytes)"))
        #expect(text.contains("0x0000:  6865 6c6c 6f20 776f 726c 64"))
        #expect(text.contains("  ! 0x0000:  7069 6e67"))
    }
}
