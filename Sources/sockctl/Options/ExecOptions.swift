import ArgumentParser
import SocketEngine

/// `--exec` and `--sh-exec` (ncat's `-e` and `-c`): a command whose standard input and output
/// are the connection. Shared by connect and listen.
struct ExecOptions: ParsableArguments {
    @Option(name: [.customShort("e"), .long], help: ArgumentHelp(
        "Run PROGRAM ARGS with its stdin and stdout on the connection, as ncat -e: one string split on spaces as ncat splits it (a backslash keeps the next character, quotes are plain characters), no shell; PROGRAM is looked up on PATH.",
        valueName: "command"))
    var exec: String?

    @Option(name: [.customShort("c"), .long], help: ArgumentHelp(
        "Run this line with /bin/sh -c, its stdin and stdout on the connection, as ncat -c.",
        valueName: "shell-line"))
    var shExec: String?

    /// The flag given, for messages ("--exec" or "--sh-exec"); nil when neither.
    var flagName: String? {
        exec != nil ? "--exec" : (shExec != nil ? "--sh-exec" : nil)
    }

    /// The command to run, or nil; a usage error when both are given, the string is empty or
    /// the program cannot be found.
    func configuration() throws -> ExecConfiguration? {
        if exec != nil && shExec != nil { throw UsageError("--exec and --sh-exec exclude each other") }
        do {
            if let exec { return ExecConfiguration(command: try ExecCommand(program: exec)) }
            if let shExec { return ExecConfiguration(command: try ExecCommand(shellLine: shExec)) }
        } catch {
            throw UsageError("\(flagName ?? "--exec"): \(error.message)")
        }
        return nil
    }

    /// A usage error naming both flags when `other` (an option that feeds or reads the
    /// connection itself) is given with a command.
    func refuse(_ other: String, given: Bool) throws {
        if given, let flagName { throw UsageError("\(flagName) and \(other) exclude each other: the command reads and writes the connection") }
    }
}
