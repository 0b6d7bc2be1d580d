/// When each message of an open-loop load test is due: a total message rate over time, as
/// piecewise-linear stages, turned into one intended send time per message.
///
/// ```
/// --rate 100 --stages 30s:1000,1m:1000,30s:0
///
/// rate │        ______________
///      │       /              \
///  100 │______/                \
///      └──────┴─────┴─────────┴──── t
///        30s   (ramp) (hold)   (down)
/// ```
///
/// Messages are numbered from 0 across all connections; message `n` is due at the first time
/// `t` where the cumulative rate ∫₀ᵗ rate reaches `n`, so message 0 is due at once and
/// `--rate 2000 --duration 5s` schedules exactly 10,000 messages. The schedule ends with its
/// last stage (``end``); ``time(ofMessage:)`` is nil for messages that would fall after it.
/// An unbounded constant rate (for `--requests`) has no end.
///
/// A shard's schedule (``sliced(_:)``) is the whole test's schedule with only the messages
/// whose number `n` the shard owns (`n % N == K`): its message `m` is the whole's message
/// `m·N + K`, due at the same time, so N shards send exactly the whole's messages, each when
/// the whole would have.
public struct RateSchedule: Sendable, Equatable {
    /// One piece: the rate moves linearly from `startRate` to `endRate` over `duration`.
    public struct Stage: Sendable, Equatable {
        /// How long the stage lasts.
        public var duration: Duration
        package var startRate: Double
        package var endRate: Double

        /// A stage whose rate moves from `startRate` to `endRate` messages per second over `duration`.
        public init(duration: Duration, startRate: Double, endRate: Double) {
            self.duration = duration
            self.startRate = startRate
            self.endRate = endRate
        }
    }

    struct Piece: Sendable, Equatable {
        var start: Double  // seconds
        var length: Double  // seconds
        var startRate: Double
        var endRate: Double
        var messagesBefore: Double
        var messages: Double { (startRate + endRate) / 2 * length }
    }

    /// The stages in order; empty for a constant rate without an end.
    public let stages: [Stage]
    let pieces: [Piece]
    /// A constant rate that goes on after the stages (nil: the schedule ends with them).
    let openEndedRate: Double?
    /// The shard whose messages this schedule holds (``Shard/whole``: all of them).
    package private(set) var slice = Shard.whole

    /// A constant `rate` for `duration`, or forever when `duration` is nil.
    public init(rate: Double, duration: Duration?) {
        if let duration {
            self.init(stages: [Stage(duration: duration, startRate: rate, endRate: rate)])
        } else {
            self.init(stages: [], pieces: [], openEndedRate: rate)
        }
    }

    private init(stages: [Stage], pieces: [Piece], openEndedRate: Double?) {
        self.stages = stages
        self.pieces = pieces
        self.openEndedRate = openEndedRate
    }

    /// Stages in order; rates are messages per second (≥ 0), durations positive.
    public init(stages: [Stage]) {
        var pieces: [Piece] = []
        var start = 0.0
        var before = 0.0
        for stage in stages {
            let length = stage.duration.secondsDouble
            let piece = Piece(start: start, length: length, startRate: max(0, stage.startRate), endRate: max(0, stage.endRate), messagesBefore: before)
            pieces.append(piece)
            start += length
            before += piece.messages
        }
        self.init(stages: stages, pieces: pieces, openEndedRate: nil)
    }

    /// Parses `30s:100,1m:1000,30s:0`: each stage ramps linearly from the previous stage's rate
    /// (`initialRate` for the first) to its own.
    public static func stages(parsing text: String, initialRate: Double) throws(LoadGenError) -> [Stage] {
        var stages: [Stage] = []
        var rate = initialRate
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let target = Double(parts[1]), target.isFinite, target >= 0, target <= 100_000_000 else {
                throw LoadGenError(.invalidStages, "invalid stage '\(item)' (expected DURATION:RATE, e.g. 30s:1000)")
            }
            let duration: Duration
            do {
                duration = try Duration(parsing: String(parts[0]))
            } catch {
                throw LoadGenError(.invalidStages, "stage '\(item)': \(error.message)")
            }
            guard duration > .zero else { throw LoadGenError(.invalidStages, "stage '\(item)' needs a positive duration") }
            stages.append(Stage(duration: duration, startRate: rate, endRate: target))
            rate = target
        }
        return stages
    }

    /// The messages of `shard`: message `m` of the result is message `m·N + K` of this schedule.
    package func sliced(_ shard: Shard) -> RateSchedule {
        var sliced = self
        sliced.slice = shard
        return sliced
    }

    /// When the schedule ends (nil: never).
    package var end: Duration? {
        guard openEndedRate == nil, let last = pieces.last else { return openEndedRate == nil ? .zero : nil }
        return .nanoseconds(Int64(((last.start + last.length) * 1e9).rounded()))
    }

    /// Messages due before `end` (nil: unbounded).
    package var totalMessages: Int? {
        guard openEndedRate == nil else { return nil }
        guard let last = pieces.last else { return 0 }
        return slice.share(of: Int((last.messagesBefore + last.messages - 1e-9).rounded(.up)))
    }

    /// The rate at `seconds` into the schedule.
    public func rate(at seconds: Double) -> Double {
        wholeRate(at: seconds) / Double(slice.count)
    }

    private func wholeRate(at seconds: Double) -> Double {
        if let openEndedRate { return openEndedRate }
        for piece in pieces where seconds < piece.start + piece.length {
            guard seconds >= piece.start else { return 0 }
            return piece.startRate + (piece.endRate - piece.startRate) * (seconds - piece.start) / piece.length
        }
        return 0
    }

    /// How many messages are due before `nanos` from the start (messages `0..<result`).
    package func messagesDue(before nanos: Int64) -> Int {
        slice.share(of: wholeMessagesDue(before: nanos))
    }

    private func wholeMessagesDue(before nanos: Int64) -> Int {
        let seconds = Double(max(0, nanos)) / 1e9
        let cumulative: Double
        if let openEndedRate {
            cumulative = openEndedRate * seconds
        } else if let piece = pieces.first(where: { seconds < $0.start + $0.length }) {
            let tau = max(0, seconds - piece.start)
            let slope = (piece.endRate - piece.startRate) / piece.length
            cumulative = piece.messagesBefore + piece.startRate * tau + slope / 2 * tau * tau
        } else {
            cumulative = pieces.last.map { $0.messagesBefore + $0.messages } ?? 0
        }
        guard cumulative.isFinite, cumulative < 9e15 else { return Int.max / 2 }
        // The estimate, made exact against time(ofMessage:) (whose times are rounded to ns).
        var count = max(0, Int((cumulative - 1e-9).rounded(.up)))
        while count > 0, let time = wholeTime(ofMessage: count - 1), time >= nanos { count -= 1 }
        while let time = wholeTime(ofMessage: count), time < nanos { count += 1 }
        return count
    }

    /// Nanoseconds from the start at which message `n` (0-based) is due; nil if the schedule
    /// ends first.
    package func time(ofMessage n: Int) -> Int64? {
        guard slice.count > 1 else { return wholeTime(ofMessage: n) }
        let (scaled, overflow) = n.multipliedReportingOverflow(by: slice.count)
        guard !overflow, n >= 0, scaled <= Int.max - slice.index else { return nil }
        return wholeTime(ofMessage: scaled + slice.index)
    }

    private func wholeTime(ofMessage n: Int) -> Int64? {
        let target = Double(n)
        if let openEndedRate {
            guard openEndedRate > 0 else { return nil }
            return Int64((target / openEndedRate * 1e9).rounded(.up))
        }
        // Stages are few: a linear search costs less than the arithmetic below.
        for piece in pieces where target < piece.messagesBefore + piece.messages {
            let need = target - piece.messagesBefore
            let slope = (piece.endRate - piece.startRate) / piece.length  // messages/s²
            let offset: Double
            if need <= 0 {
                offset = 0
            } else if abs(slope) < 1e-12 {
                offset = need / piece.startRate
            } else {
                // need = startRate·τ + slope/2·τ², the root that is reached first.
                let discriminant = max(0, piece.startRate * piece.startRate + 2 * slope * need)
                offset = 2 * need / (piece.startRate + discriminant.squareRoot())
            }
            guard offset.isFinite else { return nil }
            return Int64(((piece.start + min(offset, piece.length)) * 1e9).rounded(.up))
        }
        return nil
    }
}
