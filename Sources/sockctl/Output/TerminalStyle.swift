import Synchronization

import Glibc

/// `--color auto|always|never`: whether sockctl colours what it writes for people.
enum ColorChoice: String, CaseIterable, Sendable {
    /// Colour on a terminal, unless `NO_COLOR` is set (not empty) or `TERM` is `dumb`.
    case auto
    /// Colour everywhere, whatever the environment says (for a pager such as `less -R`).
    case always
    /// No colour.
    case never
}

/// What sockctl writes for a person at a terminal, and only there: colour (the `warning` and
/// `error` labels) and the live line redrawn in place (loadtest). One rule for every command:
///
/// - colour with `--color always`; with `auto` (the default) only when the stream is a terminal,
///   `NO_COLOR` is unset or empty (no-color.org) and `TERM` is not `dumb`; never with `never`;
/// - a line is redrawn in place only on a terminal, and with `\r` and spaces instead of the
///   erase-line sequence when `TERM` is `dumb`.
///
/// The choice is the command line's, made once (``TerminalOptions``) before any output.
enum TerminalStyle {
    private static let choice = Mutex(ColorChoice.auto)

    /// Records `--color` (called once the command line is parsed).
    static func choose(_ color: ColorChoice) {
        choice.withLock { $0 = color }
    }

    /// Whether text written to `writer` gets colour.
    static func colours(_ writer: FileDescriptorWriter) -> Bool {
        switch choice.withLock({ $0 }) {
        case .always: true
        case .never: false
        case .auto: writer.isTerminal && !noColorSet && !dumbTerminal
        }
    }

    /// `TERM=dumb`: a terminal that knows no escape sequences (Emacs shells, some CI consoles).
    static var dumbTerminal: Bool { environment("TERM") == "dumb" }

    /// `NO_COLOR` set to anything but the empty string.
    static var noColorSet: Bool { !(environment("NO_COLOR") ?? "").isEmpty }

    private static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
