import NIOCore

extension RelayPump {
    /// The pump with faults: a reader task stamps each unit's arrival and queues it (at most 64
    /// units of at most 64 KiB), and this task forwards them through ``FaultedWriter``, which
    /// counts what it sends (a unit dropped, swallowed by `timeout` or cut off by a reset is not
    /// forwarded).
    func runWithFaults(_ faults: ClientFaults) async -> End {
        let queue = AsyncBoundedQueue<Unit>(capacity: 64)
        let reader = Task {
            do {
                while let unit = try await readUnit() {
                    // Counted as forwarded by the writer, once sent: a fault may hold or discard it.
                    activity?.touch()
                    try await queue.push(unit)
                }
                queue.finish()
            } catch {
                queue.finish(throwing: error)
            }
        }
        defer { reader.cancel() }
        var writer = FaultedWriter(pump: self, faults: faults)
        do {
            while let unit = try await queue.next() {
                if let end = try await writer.forward(unit) { return end }
            }
            return await finishSink()
        } catch {
            return await failure(error)
        }
    }
}

/// Forwards one direction's units through the faults that apply to them, re-reading the fault
/// list whenever it changes (the control socket).
///
/// In order, for each unit: `timeout` discards it; `drop` discards a message by chance;
/// `latency` holds it until its arrival plus the delay (± jitter), never overtaking the one
/// before; then the bytes go out in pieces — cut at `slice` sizes and wherever a byte count of
/// `stall`, `limit` or `reset-after` falls (towards a stream side; a message is never cut),
/// paced by `bandwidth`. After each piece the counts are checked: `limit` and
/// `close-after-messages` end the client with a close, `reset-after` with a reset; a `stall`
/// due holds the next piece.
struct FaultedWriter {
    private struct Progress {
        var bytes = 0
        var messages = 0
        var bytesSinceStall = 0
        var messagesSinceStall = 0
        var lastStall: EngineClock.Instant
    }

    let pump: RelayPump
    let faults: ClientFaults
    private var version = -1
    private var active: [RelayFaultSet.Entry] = []
    private var progress: [Int: Progress] = [:]
    private var lastDue: EngineClock.Instant?
    private var nextFree: EngineClock.Instant?
    /// `timeout` faults already reported as having stopped this direction.
    private var timedOut: Set<Int> = []

    init(pump: RelayPump, faults: ClientFaults) {
        self.pump = pump
        self.faults = faults
    }

    private var clock: EngineClock { pump.clock }

    private mutating func refresh() {
        guard faults.set.version != version else { return }
        let snapshot = faults.set.snapshot
        guard snapshot.version != version else { return }
        version = snapshot.version
        active = faults.applying(snapshot.entries, to: pump.direction)
        for entry in active where progress[entry.id] == nil {
            progress[entry.id] = Progress(lastStall: faults.firstSeen(entry.id))
        }
    }

    private func note(_ entry: RelayFaultSet.Entry, _ what: String) {
        pump.reports.emit(.fault(pump.client, pump.direction, "\(what) (fault \(entry.id): \(entry.fault))"))
    }

    /// Forwards `unit`; returns how the client must end when a fault ends it.
    mutating func forward(_ unit: RelayPump.Unit) async throws -> RelayPump.End? {
        refresh()
        for entry in active {
            switch entry.fault.kind {
            case .timeout:
                if !timedOut.contains(entry.id) {
                    timedOut.insert(entry.id)
                    note(entry, "forwards nothing more")
                }
                pump.counters.discard(unit.wire.readableBytes)
                return nil
            case .drop(let share) where unit.isMessage:
                if faults.random.nextUnit() < share {
                    pump.counters.dropped()
                    pump.counters.discard(unit.wire.readableBytes)
                    note(entry, "dropped a message of \(plural(unit.body.readableBytes, "byte"))")
                    return nil
                }
            default:
                break
            }
        }
        var due = unit.arrived
        for entry in active {
            guard case .latency(let delay, let jitter) = entry.fault.kind else { continue }
            var extra = delay
            if jitter > .zero {
                extra += jitter * (2 * faults.random.nextUnit() - 1)
                if extra < .zero { extra = .zero }
            }
            due = due.advanced(by: extra)
        }
        if let lastDue, due < lastDue { due = lastDue }
        lastDue = due
        if due > unit.arrived && due > clock.now { try await clock.sleep(until: due, tolerance: nil) }

        // Shown as it goes on, not before: a dropped or discarded unit never appears as relayed.
        pump.report(unit)
        guard var bytes = pump.outgoing(unit) else { return nil }
        let cuttable = !pump.sink.carriesMessages
        var sent = 0
        while bytes.readableBytes > 0 {
            refresh()
            try await stallIfDue()
            var room = bytes.readableBytes
            var sliceDelay: Duration?
            var rate: Int?
            for entry in active {
                let done = progress[entry.id]
                switch entry.fault.kind {
                case .slice(let size, let delay) where cuttable:
                    room = min(room, size)
                    sliceDelay = delay
                case .stall(_, .bytes(let every)) where cuttable:
                    room = min(room, max(1, every - (done?.bytesSinceStall ?? 0)))
                case .limit(let limit):
                    let left = limit - (done?.bytes ?? 0)
                    if !cuttable && left < bytes.readableBytes { return .faultClose("fault \(entry.id): \(entry.fault)") }
                    room = min(room, max(1, left))
                case .resetAfter(.bytes(let after)) where cuttable:
                    room = min(room, max(1, after - (done?.bytes ?? 0)))
                case .bandwidth(let perSecond):
                    rate = min(rate ?? .max, perSecond)
                    // Pieces of about 20 ms keep the pace even.
                    if cuttable { room = min(room, max(1, perSecond / 50)) }
                default:
                    break
                }
            }
            guard let piece = bytes.readSlice(length: room) else { break }
            if let rate { try await pace(piece.readableBytes, rate: rate) }
            try await pump.sink.send(piece, kind: unit.kind)
            sent += piece.readableBytes
            let finished = bytes.readableBytes == 0
            // The unit's bytes as read (its framing included), or what went of them before a
            // fault ended the client part-way.
            if finished { pump.counters.forwarded(unit.wire.readableBytes, pump.direction) }
            if let end = count(piece.readableBytes, endsMessage: finished) {
                if !finished { pump.counters.forwarded(min(sent, unit.wire.readableBytes), pump.direction) }
                return end
            }
            if !finished, let sliceDelay, sliceDelay > .zero { try await clock.sleep(for: sliceDelay) }
        }
        return nil
    }

    /// Holds the traffic for every `stall` whose count or interval has come round.
    private mutating func stallIfDue() async throws {
        for entry in active {
            guard case .stall(let length, let every) = entry.fault.kind, var done = progress[entry.id] else { continue }
            let due: Bool
            switch every {
            case .bytes(let count): due = done.bytesSinceStall >= count
            case .messages(let count): due = done.messagesSinceStall >= count
            case .time(let interval): due = done.lastStall.advanced(by: interval) <= clock.now
            }
            guard due else { continue }
            note(entry, "stalled for \(length.formatted)")
            try await clock.sleep(for: length)
            done.bytesSinceStall = 0
            done.messagesSinceStall = 0
            done.lastStall = clock.now
            progress[entry.id] = done
        }
    }

    /// Waits until `bytes` may go at `rate` bytes per second.
    private mutating func pace(_ bytes: Int, rate: Int) async throws {
        let now = clock.now
        var start = nextFree ?? now
        if start < now { start = now }
        if start > now { try await clock.sleep(until: start, tolerance: nil) }
        nextFree = start.advanced(by: .nanoseconds(Int64((Double(bytes) / Double(max(1, rate)) * 1e9).rounded())))
    }

    /// Counts a piece sent; returns the end a fault calls for once its count is reached.
    private mutating func count(_ bytes: Int, endsMessage: Bool) -> RelayPump.End? {
        var end: RelayPump.End?
        for entry in active {
            guard var done = progress[entry.id] else { continue }
            done.bytes += bytes
            done.bytesSinceStall += bytes
            if endsMessage {
                done.messages += 1
                done.messagesSinceStall += 1
            }
            progress[entry.id] = done
            guard end == nil else { continue }
            let name = "fault \(entry.id): \(entry.fault)"
            switch entry.fault.kind {
            case .limit(let limit) where done.bytes >= limit:
                end = .faultClose(name)
            case .resetAfter(.bytes(let after)) where done.bytes >= after:
                end = .faultReset(name)
            case .resetAfter(.messages(let after)) where done.messages >= after:
                end = .faultReset(name)
            case .closeAfterMessages(let after) where done.messages >= after:
                end = .faultClose(name)
            default:
                break
            }
            if let end {
                switch end {
                case .faultReset: note(entry, "resets the client after \(plural(done.bytes, "byte")), \(plural(done.messages, "message"))")
                default: note(entry, "closes the client after \(plural(done.bytes, "byte")), \(plural(done.messages, "message"))")
                }
            }
        }
        return end
    }
}
