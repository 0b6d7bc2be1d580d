/// Long options that a command does not have under a name another command uses for something
/// else: `--timeout` is send's wait for the whole exchange, while loadtest's wait for a reply is
/// `--reply-timeout` and replay's wait for the target to send is `--idle-timeout` (one meaning
/// per long name; the README's "Option names" and the conventions tests hold the list).
///
/// The parser would only say "unknown option"; the user who brought the name from the other
/// command gets one line that points at the right option, exit status 2, before anything runs.
enum RenamedOptions {
    /// One name that means something else here, and what to use instead.
    struct Rename: Sendable {
        /// The subcommand (`loadtest`).
        let command: String
        /// The name it does not have (`--timeout`).
        let option: String
        /// The line to print after `sockctl CMD: error: `.
        let message: String
    }

    static let table: [Rename] = [
        Rename(command: "loadtest", option: "--timeout",
               message: "--timeout is not a loadtest option: a reply's wait is --reply-timeout"),
        Rename(command: "replay", option: "--timeout",
               message: "--timeout is not a replay option: the wait for the target (or, with --as-server, a client) to send is --idle-timeout"),
    ]

    /// The first option of `arguments` (the command line after `sockctl`) that its subcommand
    /// has under another name; nil when there is none. Nothing after `--` is an option.
    static func misuse(in arguments: [String]) -> Rename? {
        guard let command = arguments.first else { return nil }
        let renames = table.filter { $0.command == command }
        guard !renames.isEmpty else { return nil }
        for argument in arguments.dropFirst() {
            if argument == "--" { return nil }
            if let rename = renames.first(where: { argument == $0.option || argument.hasPrefix($0.option + "=") }) {
                return rename
            }
        }
        return nil
    }
}
