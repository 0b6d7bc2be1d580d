@testable import LoadGen

extension LoadGenError {
    /// The text as a command line words it when each setting's flag is `--` and its key, as
    /// the CLI's table does for the load generator's settings.
    var flagged: String { text.rendered { "--" + $0.rawValue } }
}
