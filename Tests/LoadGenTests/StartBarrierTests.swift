import Foundation
import SocketEngine
import Testing

@testable import LoadGen
import TestSupport

/// How the shards of one test start together (issue 32): the barrier in a shared directory
/// (`--barrier DIR --parties N`) and the wall-clock start (`--start-at`), in virtual time —
/// the barrier looks at the directory every 50 ms of the test's clock, never of the machine's.
@Suite(.hangGuard) struct StartBarrierTests {
    /// Shards 0 and 1 wait; shard 2 arrives and passes at once; the others pass at their next look.
    @Test func shardsPassOnceAllHaveAnnouncedThemselves() async throws {
        let scratch = try Scratch()
        let clock = VirtualClock()
        let directory = scratch.path("barrier")  // made by the first shard
        let barrier = StartBarrier(directory: directory, parties: 3, timeout: .seconds(60))
        let early = (0..<2).map { index in
            Task { () -> Result<Duration, LoadGenError> in
                do throws(LoadGenError) {
                    return .success(try await barrier.pass(as: try Shard(index: index, count: 3), clock: clock.engine))
                } catch {
                    return .failure(error)
                }
            }
        }
        // Both have announced themselves and wait for their next look.
        #expect(try await clock.deadlines(count: 2) == [.milliseconds(50), .milliseconds(50)])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["shard-0.ready", "shard-1.ready"])
        // One look at a time: time stays at each look until the next advance, so a shard that
        // wakes late on a busy machine still plans its next look from the same moment.
        await clock.advance(to: .milliseconds(50))
        #expect(try await clock.deadlines(count: 2) == [.milliseconds(100), .milliseconds(100)])
        await clock.advance(to: .milliseconds(100))
        #expect(try await clock.deadlines(count: 2) == [.milliseconds(150), .milliseconds(150)])
        let last = try await barrier.pass(as: Shard(index: 2, count: 3), clock: clock.engine)
        #expect(last == .zero)
        await clock.advance(to: .milliseconds(150))
        for task in early { #expect(try await task.value.get() == .milliseconds(150)) }
        // Written whole: nothing but the announcements is left in the directory.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["shard-0.ready", "shard-1.ready", "shard-2.ready"])
        let text = try String(contentsOfFile: "\(directory)/shard-1.ready", encoding: .utf8)
        #expect(text.hasPrefix("shard 1/3 pid \(getpid()) host "))
    }

    /// A shard whose siblings do not come fails when its timeout runs out, saying how many
    /// arrived and which are missing; an announcement of a run long past is not counted.
    @Test func aShardFailsClearlyWhenTheOthersDoNotComeInTime() async throws {
        let scratch = try Scratch()
        let clock = VirtualClock()
        let directory = scratch.path("barrier")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        // Shard 1 is here; shard 3 announced itself two hours ago, in an earlier run.
        _ = FileManager.default.createFile(atPath: "\(directory)/shard-1.ready", contents: Data("shard 1/4\n".utf8))
        _ = FileManager.default.createFile(atPath: "\(directory)/shard-3.ready", contents: Data("shard 3/4\n".utf8))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7200)], ofItemAtPath: "\(directory)/shard-3.ready")
        let barrier = StartBarrier(directory: directory, parties: 4, timeout: .seconds(30))
        let waiting = Task { () -> LoadGenError? in
            do throws(LoadGenError) {
                _ = try await barrier.pass(as: try Shard(index: 0, count: 4), clock: clock.engine)
                return nil
            } catch {
                return error
            }
        }
        #expect(try await clock.nextDeadline(unlessItEnds: waiting) == .milliseconds(50))
        await clock.advance(to: .seconds(29))
        #expect(try await clock.nextDeadline(unlessItEnds: waiting) == .milliseconds(29_050))
        await clock.advance(to: .seconds(30))
        let error = try #require(await waiting.value)
        #expect(error.code == .startNotReached)
        #expect(error.message == "2 of 4 shards arrived at the barrier in \(directory) within 30s (missing: 2, 3)")
    }

    @Test func aShardOutsideTheBarrierOrAFileForADirectoryIsRefused() async throws {
        let scratch = try Scratch()
        let clock = VirtualClock()
        let outside = await #expect(throws: LoadGenError.self) {
            try await StartBarrier(directory: scratch.path("b"), parties: 2).pass(as: Shard(index: 2, count: 3), clock: clock.engine)
        }
        #expect(outside?.message == "shard 2/3 cannot join a barrier of 2 parties (shards 0 to 1)")
        _ = FileManager.default.createFile(atPath: scratch.path("file"), contents: Data())
        let file = await #expect(throws: LoadGenError.self) {
            try await StartBarrier(directory: scratch.path("file"), parties: 2).pass(as: Shard(index: 0, count: 2), clock: clock.engine)
        }
        #expect(file?.message == "barrier directory \(scratch.path("file")) is not a directory")
    }

    /// `--start-at`: waited for on the caller's clock from the wall clock's reading; a time
    /// already past starts at once and says by how much; a day away is a mistake.
    @Test func aStartTimeIsWaitedForOnTheCallersClock() async throws {
        let clock = VirtualClock()
        let now = try #require(ISO8601DateFormatter().date(from: "2026-11-28T10:00:00Z"))
        let start = try StartTime(parsing: "2026-11-28T11:00:02.5+01:00")
        #expect(start.date == now.addingTimeInterval(2.5))
        let waiting = Task { try? await start.wait(clock: clock.engine, now: now) }
        #expect(try await clock.nextDeadline(unlessItEnds: waiting) == .milliseconds(2500))
        await clock.advance(to: .milliseconds(2500))
        #expect(await waiting.value == .zero)
        #expect(try await StartTime(parsing: "2026-11-28T09:59:58Z").wait(clock: clock.engine, now: now) == .seconds(2))
        let far = await #expect(throws: LoadGenError.self) { try await StartTime(parsing: "2026-11-30T10:00:00Z").wait(clock: clock.engine, now: now) }
        #expect(far?.message == "the start time 2026-11-30T10:00:00.000Z is more than a day away")
        for bad in ["tomorrow", "2026-11-28 10:00:00", "2026-11-28T10:00:00", "10:00"] {
            let error = #expect(throws: LoadGenError.self, "\(bad)") { try StartTime(parsing: bad) }
            #expect(error?.message.contains("expected RFC 3339") == true)
        }
    }
}
