import SocketEngine

/// The one error type of the load generator: why a plan, a threshold, a rate schedule, an
/// encoded histogram, a report file or a set of reports to merge was refused.
///
/// ``message`` is one line for a person, naming the option or value at fault (`invalid
/// --threshold 'p99<'`); ``code`` says which kind of input it was. Failures of the connections
/// themselves are not errors of the run: they are counted by kind in the ``LoadReport``.
public struct LoadGenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was refused.
    public enum Code: String, Sendable, Equatable {
        /// A ``LoadPlan`` that cannot run (no target, out-of-range figures, options that
        /// exclude each other).
        case invalidPlan = "invalid-plan"
        /// A target that does not resolve, or a `--source` that cannot be bound, before the run.
        case unreachableTarget = "unreachable-target"
        /// A message template its framing cannot carry.
        case invalidMessage = "invalid-message"
        /// A `--threshold` expression that does not parse.
        case invalidThreshold = "invalid-threshold"
        /// A `--stages` list that does not parse.
        case invalidStages = "invalid-stages"
        /// An encoded histogram that does not decode (bad base64, truncated, corrupted, too big).
        case invalidHistogram = "invalid-histogram"
        /// Reports that cannot be added up (none, other targets).
        case unmergeableReports = "unmergeable-reports"
        /// A report file holding a figure no run can have (a negative count, a rate that is not
        /// a finite number, a time that is not one, a histogram that does not decode or does not
        /// match the others), or figures whose sum does not fit: the message names the file and
        /// the field.
        case invalidReport = "invalid-report"
        /// A `--json` file that cannot be read or written, or does not hold a report.
        case unreadableReport = "unreadable-report"
        /// A report file named on the command line that cannot be opened (no such file, no
        /// permission): the command line's mistake.
        case missingReport = "missing-report"
        /// The `--metrics-listen` address cannot be bound (in use, not local, no permission).
        case metricsUnavailable = "metrics-unavailable"
        /// The run did not start: not every shard arrived at the start barrier in time (``StartBarrier``), or the wait for the start was cancelled.
        case startNotReached = "start-not-reached"
    }

    /// What kind of input was refused.
    public let code: Code
    /// One line, naming the value at fault and the settings by key.
    public let text: SettingText

    /// An error of kind `code`, with `text` naming the value at fault.
    public init(_ code: Code, _ text: SettingText) {
        self.code = code
        self.text = text
    }


    /// The ``text`` in plain words (settings by their plain names); the CLI renders ``text``
    /// with its flags.
    public var message: String { text.description }

    /// The ``message``.
    public var description: String { message }

    /// True when the command line asked for something that cannot run (a plan, message,
    /// threshold or stage list), rather than a file or report being wrong.
    public var isUsageError: Bool {
        switch code {
        case .invalidPlan, .invalidMessage, .invalidThreshold, .invalidStages, .missingReport: true
        case .unreachableTarget, .invalidHistogram, .unmergeableReports, .invalidReport, .unreadableReport, .metricsUnavailable, .startNotReached: false
        }
    }
}
