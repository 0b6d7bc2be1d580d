import Foundation
import SocketEngine

/// The start of N shards of one load test held until all have arrived (`--barrier DIR
/// --parties N`), through a directory they share (a Kubernetes Job's results volume) and
/// nothing else: no coordinator, no network between the shards.
///
/// Each shard writes its announcement, `shard-K.ready`, into the directory whole (written
/// beside it and renamed into place, so another shard never reads half of one), then looks
/// at the directory every ``pollInterval`` and passes once it holds the announcements of
/// ``parties`` distinct shards (its own included). A shard that has not seen them all within
/// ``timeout`` fails (``LoadGenError/Code/startNotReached``, saying how many arrived and which
/// are missing), so a pod that never started fails its siblings clearly instead of leaving
/// them waiting or running alone.
///
/// Announcements older than ``timeout`` before the newest one (by the directory's file times:
/// one clock, the file server's) are a previous run's and are not counted. Every wait goes by the caller's
/// clock (a `TestClock` in tests).
public struct StartBarrier: Sendable {
    /// The shared directory (created if its parent exists).
    public var directory: String
    /// How many distinct shards must announce themselves.
    public var parties: Int
    /// How long to wait for them.
    public var timeout: Duration
    /// How often the directory is looked at.
    public var pollInterval: Duration = .milliseconds(50)

    /// The default ``timeout``: ten minutes (pods are scheduled, images pulled).
    public static let defaultTimeout: Duration = .seconds(600)

    /// A barrier of `parties` shards in `directory`.
    public init(directory: String, parties: Int, timeout: Duration = Self.defaultTimeout) {
        self.directory = directory
        self.parties = parties
        self.timeout = timeout
    }

    /// The announcement file of shard `index`.
    package static func announcementName(_ index: Int) -> String { "shard-\(index).ready" }

    /// Announces `shard` and waits until ``parties`` distinct shards have; returns how long it
    /// waited. Throws `.invalidPlan` when the directory cannot be used or the shard does not
    /// belong (an index at or past ``parties``), `.startNotReached` when the others do not
    /// come within ``timeout``.
    public func pass(as shard: Shard, clock: EngineClock) async throws(LoadGenError) -> Duration {
        guard parties >= 1, parties <= Shard.maximumCount else {
            throw LoadGenError(.invalidPlan, "a barrier needs 1 to \(Shard.maximumCount) parties, not \(parties)")
        }
        guard shard.index < parties else {
            throw LoadGenError(.invalidPlan, "shard \(shard) cannot join a barrier of \(parties) parties (shards 0 to \(parties - 1))")
        }
        try announce(shard)
        let start = clock.now
        let deadline = start.advanced(by: timeout)
        while true {
            let arrived = try arrivals()
            if arrived.count >= parties { return clock.elapsed(since: start) }
            if clock.now >= deadline {
                let missing = (0..<parties).filter { !arrived.contains($0) }
                let named = missing.prefix(10).map(String.init).joined(separator: ", ") + (missing.count > 10 ? ", …" : "")
                throw LoadGenError(.startNotReached, "\(arrived.count) of \(parties) shards arrived at the barrier in \(directory) within \(timeout.formatted) (missing: \(named))")
            }
            do {
                try await clock.sleep(until: min(deadline, clock.now.advanced(by: pollInterval)))
            } catch {
                throw LoadGenError(.startNotReached, "the wait at the barrier in \(directory) was cancelled with \(arrived.count) of \(parties) shards arrived")
            }
        }
    }

    /// Writes this shard's announcement into the directory, whole.
    private func announce(_ shard: Shard) throws(LoadGenError) {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            } catch {
                // Another shard may have made it first.
                guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
                    throw LoadGenError(.invalidPlan, "barrier directory \(directory): cannot be created (\((error as NSError).localizedDescription))")
                }
            }
        }
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw LoadGenError(.invalidPlan, "barrier directory \(directory) is not a directory")
        }
        let host = ProcessInfo.processInfo.hostName
        let text = "shard \(shard) pid \(getpid()) host \(host)\n"
        do {
            let file = try OutputFile.open("\(directory)/\(Self.announcementName(shard.index))", mode: .whole)
            try file.write(Array(text.utf8))
            try file.finish()
        } catch {
            throw LoadGenError(.invalidPlan, "barrier directory \(directory): \(error.message)")
        }
    }

    /// The shards whose announcements are in the directory and not a previous run's.
    private func arrivals() throws(LoadGenError) -> Set<Int> {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw LoadGenError(.invalidPlan, "barrier directory \(directory): cannot be read (\((error as NSError).localizedDescription))")
        }
        var times: [Int: Date] = [:]
        for name in names where name.hasPrefix("shard-") && name.hasSuffix(".ready") {
            guard let index = Int(name.dropFirst(6).dropLast(6)), (0..<parties).contains(index),
                  let attributes = try? FileManager.default.attributesOfItem(atPath: "\(directory)/\(name)"),
                  let modified = attributes[.modificationDate] as? Date
            else { continue }
            times[index] = modified
        }
        guard let newest = times.values.max() else { return [] }
        let oldestCounted = newest.addingTimeInterval(-timeout.secondsDouble)
        return Set(times.filter { $0.value >= oldestCounted }.keys)
    }
}
