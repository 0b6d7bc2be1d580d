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

    /// How loud the line is.
    public let level: Level
    /// The words, settings by key (the CLI renders them with its flags).
    public let text: SettingText

    /// A line of `level` saying `text`.
    public init(_ level: Level, _ text: SettingText) {
        self.level = level
        self.text = text
    }


    /// A line always shown.
    public static func note(_ text: SettingText) -> LogLine { LogLine(.note, text) }
    /// A `-v` line.
    public static func event(_ text: SettingText) -> LogLine { LogLine(.event, text) }
    /// A warning.
    public static func warning(_ text: SettingText) -> LogLine { LogLine(.warning, text) }

    /// A line always shown, naming no setting.
    @_disfavoredOverload
    public static func note(_ text: String) -> LogLine { LogLine(.note, SettingText(text)) }
    /// A `-v` line, naming no setting.
    @_disfavoredOverload
    public static func event(_ text: String) -> LogLine { LogLine(.event, SettingText(text)) }
    /// A warning, naming no setting.
    @_disfavoredOverload
    public static func warning(_ text: String) -> LogLine { LogLine(.warning, SettingText(text)) }
}
