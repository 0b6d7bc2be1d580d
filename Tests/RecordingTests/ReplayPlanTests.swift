import NIOCore
import PacketDecoding
import Recording
import SocketEngine
import Testing
import TestSupport

/// What replaying a recorded stream means, from a capture made packet by packet.
@Suite(.hangGuard) struct ReplayPlanTests {
    static func session() -> CraftedSession {
        var session = CraftedSession()
        session.add(session.connection.open())
        session.data("A\nB", from: .client, after: 5)
        session.data("a\n", from: .server, after: 3)
        session.data("\n", from: .client, after: 197)
        session.data("b\n", from: .server, after: 4)
        session.add(session.connection.close(first: .client), after: 91)
        return session
    }

    @Test func segmentsKeepTheirRecordedTimesFromTheFirstPacket() throws {
        let plan = try ReplayPlan(stream: try Self.session().stream(), framing: nil, messageTarget: false, maximumFrameSize: 1 << 20)
        #expect(plan.sends.map(\.due) == [.milliseconds(5), .milliseconds(205)])
        #expect(plan.sends.map { String(buffer: $0.bytes) } == ["A\nB", "\n"])
        #expect(plan.expected.map { String(buffer: $0) } == ["a\n", "b\n"])
        #expect(plan.clientFinishedAt == .milliseconds(300))
        #expect(plan.serverBytesBeforeClientFinish == 4)
    }

    @Test func framingCutsTheClientIntoWholeFramesDueWhenTheirLastByteCame() throws {
        let plan = try ReplayPlan(stream: try Self.session().stream(), framing: .line, messageTarget: false, maximumFrameSize: 1 << 20)
        #expect(plan.sends.map(\.due) == [.milliseconds(5), .milliseconds(205)])
        #expect(plan.sends.map { String(buffer: $0.bytes) } == ["A\n", "B\n"])
        #expect(plan.expected.map { String(buffer: $0) } == ["a", "b"])
        let messages = try ReplayPlan(stream: try Self.session().stream(), framing: .line, messageTarget: true, maximumFrameSize: 1 << 20)
        #expect(messages.sends.map { String(buffer: $0.bytes) } == ["A", "B"], "a message target gets the bodies")
    }

    @Test func dataNotInTheFramingIsOneClearError() throws {
        #expect {
            _ = try ReplayPlan(stream: try Self.session().stream(), framing: .lengthPrefixed(width: 4, bigEndian: true), messageTarget: false, maximumFrameSize: 16)
        } throws: { ($0 as? RecordingError)?.code == .framingMismatch }
    }
}
