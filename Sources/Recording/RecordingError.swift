import SocketEngine

/// The one error type of the Recording library: why a capture could not be read or replayed,
/// or why a recording could not be written.
///
/// ``message`` is one line for a person (it names the file and, where it matters, the stream);
/// ``code`` says what kind of failure it is, so a caller can choose an exit status (a stream
/// that does not exist is the command line's mistake, a truncated file is not); ``detail`` is
/// text to show after the line (the stream table when the choice of stream was ambiguous).
///
/// Not errors: a target whose answers differ from the recording (that is a
/// ``ReplayVerifier/Mismatch``), a recorder that fell behind and dropped bytes (counted in
/// ``SessionRecorder/Totals``).
public struct RecordingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: String, Sendable, Equatable {
        /// The capture file cannot be read, or is not a capture.
        case unreadableCapture = "unreadable-capture"
        /// There is no such capture file, or it may not be opened (a usage error).
        case unopenableCapture = "unopenable-capture"
        /// The capture holds no TCP or UDP stream, or the one asked for is missing data.
        case unusableCapture = "unusable-capture"
        /// The stream asked for does not exist, or more than one could be meant (a usage error).
        case noSuchStream = "no-such-stream"
        /// The recorded data does not follow the framing asked for.
        case framingMismatch = "framing-mismatch"
        /// The recording file cannot be created or written.
        case recordingFailed = "recording-failed"
        /// An `--ignore` pattern that is not a regular expression (a usage error).
        case invalidPattern = "invalid-pattern"
        /// A replay speed out of range, or a speed and top speed together (a usage error).
        case invalidSpeed = "invalid-speed"
    }

    /// What kind of failure this is, for choosing an exit status.
    public let code: Code
    /// One line, naming the file or stream involved and the settings by key.
    public let text: SettingText
    /// Shown after ``message`` when set (several lines, each ending in a newline).
    public let detail: String?

    /// An error of kind `code` with its one-line `text` and, optionally, lines to show after it.
    public init(_ code: Code, _ text: SettingText, detail: String? = nil) {
        self.code = code
        self.text = text
        self.detail = detail
    }


    /// The ``text`` in plain words (settings by their plain names); the CLI renders ``text``
    /// with its flags.
    public var message: String { text.description }

    /// The ``message`` alone (``detail`` is not included).
    public var description: String { message }

    /// True when the command line asked for something the capture does not have.
    public var isUsageError: Bool { code == .noSuchStream || code == .invalidPattern || code == .invalidSpeed || code == .unopenableCapture }
}
