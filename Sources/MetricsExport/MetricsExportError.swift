import SocketEngine

/// The one error type of the metrics endpoint: why its listening address was refused or could not
/// be served.
///
/// What is not an error: a scraper that disconnects, asks for another path (404) or another
/// method (405), or never comes; the run goes on either way.
public struct MetricsExportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Equatable {
        /// The address does not parse, is not a TCP address, or names no local address.
        case invalidAddress = "invalid-address"
        /// The address parses but cannot be bound (in use, not local, no permission).
        case bindFailed = "bind-failed"
    }

    /// What went wrong.
    public let code: Code
    /// One line, naming the address at fault and the setting by key.
    public let text: SettingText

    /// An error of kind `code`, with `text` naming the address at fault.
    public init(_ code: Code, _ text: SettingText) {
        self.code = code
        self.text = text
    }


    /// The ``text`` in plain words (the setting by its plain name); the CLI renders ``text``
    /// with its flag.
    public var message: String { text.description }

    /// The ``message``.
    public var description: String { message }

    /// True when the command line asked for an address that cannot be one.
    public var isUsageError: Bool { code == .invalidAddress }
}
