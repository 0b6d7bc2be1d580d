/// One line of a command's log, as an engine event words it: the text and how loud it is.
/// The CLI prints `.note` always, `.event` with `-v` (timestamped), `.warning` labelled.
public struct LogLine: Sendable, Equatable {
    /// How loud a line is.
    public enum Level: Sendable, Equatable {
        /// Always shown (a client log line, a summary).
        case note
        /// Shown with `-v`.
        case event
        /// Shown always, labelled `warning:`.
        case warning
    }

    public let level: Level
    public let text: String

    public init(_ level: Level, _ text: String) {
        self.level = level
        self.text = text
    }

    /// A line always shown.
    public static func note(_ text: String) -> LogLine { LogLine(.note, text) }
    /// A `-v` line.
    public static func event(_ text: String) -> LogLine { LogLine(.event, text) }
    /// A warning.
    public static func warning(_ text: String) -> LogLine { LogLine(.warning, text) }
}
