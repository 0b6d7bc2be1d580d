import ArgumentParser
import Foundation
import LoadGen
import SocketEngine

/// `loadtest --shard K/N --barrier DIR --parties N --start-at TIME`: one of N copies of a load
/// test that together make the whole (a Kubernetes Indexed Job, `deploy/kubernetes/`), and
/// how the copies start together. The split is ``LoadPlan/sharded(_:connections:)``, the
/// waits ``StartBarrier`` and ``StartTime``.
struct ShardOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Run shard K (from 0) of N copies that together make this test: connections, --rate, --stages, --requests and --from-pcap streams are split, the remainder to the lowest shards; the report records K/N. E.g. --shard \"$JOB_COMPLETION_INDEX/3\".",
            valueName: "k/n"),
        transform: { text in try validating { try Shard(parsing: text) } })
    var shard: Shard?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --shard: announce this shard in DIR (shared by all shards, e.g. their results volume) and start once --parties shards have announced; fail after --barrier-timeout.",
            valueName: "dir"))
    var barrier: String?

    @Option(name: .long, help: ArgumentHelp("With --barrier: how many shards to wait for (default: N of --shard).", valueName: "n"))
    var parties: Int?

    @Option(name: .long, help: ArgumentHelp("With --barrier: fail unless every shard has announced within this time (default 10m).", valueName: "dur"))
    var barrierTimeout: Duration?

    @Option(
        name: .long,
        help: ArgumentHelp("Start at this wall-clock time (RFC 3339, e.g. 2026-11-28T10:00:00Z; after --barrier, if given): for machines with synchronised clocks.", valueName: "time"),
        transform: { text in try validating { try StartTime(parsing: text) } })
    var startAt: StartTime?

    /// Checks the values, then which go together.
    func validate() throws {
        if let barrier { try Self.checkDirectory(barrier) }
        if let parties { _ = try checkedCount(parties, "--parties", within: 1...Shard.maximumCount) }
        if let barrierTimeout { _ = try checkedPositive(barrierTimeout, "--barrier-timeout") }
        if barrier == nil {
            if parties != nil { throw UsageError("--parties needs --barrier DIR") }
            if barrierTimeout != nil { throw UsageError("--barrier-timeout needs --barrier DIR") }
        } else if shard == nil {
            throw UsageError("--barrier needs --shard K/N (a shard announces itself by its number)")
        }
        if let shard, let parties = resolvedParties, shard.index >= parties {
            throw UsageError("--shard \(shard) cannot join a barrier of --parties \(parties) (shards 0 to \(parties - 1))")
        }
    }

    /// `--parties`, or N of `--shard` (nil without `--barrier`).
    private var resolvedParties: Int? {
        guard barrier != nil else { return nil }
        return parties ?? shard?.count
    }

    /// The barrier asked for (nil: none).
    var startBarrier: StartBarrier? {
        guard let barrier, let parties = resolvedParties else { return nil }
        return StartBarrier(directory: barrier, parties: parties, timeout: barrierTimeout ?? StartBarrier.defaultTimeout)
    }

    /// A barrier directory that exists, or whose parent does (the first shard makes it).
    private static func checkDirectory(_ path: String) throws {
        if path.isEmpty { throw UsageError("--barrier needs a directory name") }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if !isDirectory.boolValue { throw UsageError("--barrier \(path) is not a directory") }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        let folder = parent.isEmpty ? "." : parent
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) else {
            throw UsageError("--barrier \(path): no such directory as \(folder)")
        }
        if !isDirectory.boolValue { throw UsageError("--barrier \(path): \(folder) is not a directory") }
    }

    /// Waits for the barrier, then the start time, as asked; says on stderr how long each
    /// took and when a start time was missed. A shard that cannot start throws (exit 1).
    func waitForStart(as shard: Shard?, clock: EngineClock, diagnostics: Diagnostics) async throws {
        if let barrier = startBarrier, let shard {
            diagnostics.note("shard \(shard): waiting at the barrier in \(barrier.directory) for \(barrier.parties) shards")
            let waited = try await barrier.pass(as: shard, clock: clock)
            diagnostics.note("shard \(shard): all \(barrier.parties) shards arrived (waited \(waited.formatted))")
        }
        if let startAt {
            let late = try await startAt.wait(clock: clock, now: Date())
            if late > .zero { diagnostics.warning("the start time \(StartTime.text(startAt.date)) had passed \(late.formatted) ago: started at once") }
        }
    }
}
