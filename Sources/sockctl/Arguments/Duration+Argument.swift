import ArgumentParser
import SocketEngine

/// Durations on the command line: `250ms`, `2s`, `1.5s`, `1m`, `1h`, `100us` (a bare number is
/// seconds), read by the engine's ``Duration/init(parsing:)`` and shown back the same way in
/// `--help` defaults. A value that does not read is refused by the parser as "The value 'soon'
/// is invalid for '--timeout <dur>'"; ranges (greater than zero) are checked by each command.
extension Duration: @retroactive ExpressibleByArgument {
    public init?(argument: String) {
        guard let value = try? Duration(parsing: argument) else { return nil }
        self = value
    }

    public var defaultValueDescription: String { formatted }
}
