import ArgumentParser
import Capture
import LoadGen
import PacketDecoding
import Recording
import SocketEngine

import Glibc

@main
struct Sockctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sockctl",
        abstract: "Talk to, stand up, script and debug network sockets.",
        discussion: """
            One tool for what nc, ncat, socat and websocat do, on one socket engine. \
            Endpoints use one grammar everywhere: host:port, [v6]:port, tcp://host:port, \
            udp://host:port, unix:/path. Durations are written 250ms, 2s, 1m.

            Output: the result on stdout, everything about it (logs, -v, --hexdump, warnings, \
            errors) on stderr; --json puts JSON and nothing else on stdout. --color \
            auto|always|never (auto honours NO_COLOR and TERM=dumb) on every command.

            Exit status: 0 success, 1 the operation failed (refused, reset, timeout), \
            2 usage error (an output file that cannot be written included); 130 or 143 when \
            SIGINT or SIGTERM stopped connect, send, replay or loadtest, after its summary \
            and files (listen, proxy and capture end on the signal with 0). Errors are one line, \
            'sockctl CMD: error: ...', saying what was expected.

            sockctl --version prints the version and the build (commit, Swift version). \
            Shell completion: sockctl --generate-completion-script bash|zsh|fish prints the \
            script for that shell, e.g. \
            sockctl --generate-completion-script bash > /etc/bash_completion.d/sockctl, or \
            source <(sockctl --generate-completion-script bash) in ~/.bashrc.
            """,
        version: Version.line,
        subcommands: [Connect.self, Listen.self, Send.self, Proxy.self, Replay.self, LoadTest.self, Report.self, CaptureCommand.self]
    )

    static func main() async {
        signal(SIGPIPE, SIG_IGN)
        LargeBufferPolicy.returnLargeBuffersToTheSystem()
        let arguments = Array(CommandLine.arguments.dropFirst())
        PasswordArguments.hideInProcessArguments()
        if let rename = RenamedOptions.misuse(in: OptionalValueOptions.normalize(arguments)) {
            Diagnostics(command: rename.command, verbose: false).error(rename.message)
            Glibc.exit(2)
        }
        do {
            var command = try parseAsRoot(OptionalValueOptions.normalize(arguments))
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Glibc.exit(0)
        } catch {
            Glibc.exit(status(for: error, arguments: arguments))
        }
    }

    /// Every way out, mapped to the SPEC's exit statuses: 0 success, 1 failure, 2 usage.
    /// Errors the command already reported carry their status (``CommandFailed``); the
    /// argument parser's refusals are usage errors, reworded by ``CommandLineError``; any other
    /// is printed here, with the status ``ExitStatus`` gives it. Every message is one line,
    /// `sockctl CMD: error: …`. `arguments` are the command line as given (before
    /// ``OptionalValueOptions`` rewrote it).
    static func status(for error: any Error, arguments: [String]) -> Int32 {
        switch error {
        case let failed as CommandFailed:
            return failed.status
        case let exit as ExitCode:
            return exit.rawValue
        case is UsageError, is any LibraryError:
            let name = CommandLineModel.commandName(arguments)
            Diagnostics(command: name, verbose: false).error(CommandLineError.oneLine(ExitStatus.message(error).line))
            return ExitStatus.of(error)
        default:
            let code = exitCode(for: error)
            if code == .success {
                // --help, --version, --generate-completion-script.
                Self.exit(withError: error)
            }
            guard code == .validationFailure else {
                let name = CommandLineModel.commandName(arguments)
                Diagnostics(command: name, verbose: false).error(CommandLineError.oneLine(message(for: error)))
                return code.rawValue
            }
            let refusal = CommandLineError(parserMessage: message(for: error), arguments: arguments, model: .sockctl())
            Diagnostics(command: refusal.command, verbose: false).error(refusal.message)
            return 2
        }
    }
}

extension Substring {
    func trimmingCharacters(in set: Character) -> Substring {
        var copy = self
        while copy.first == set { copy.removeFirst() }
        while copy.last == set { copy.removeLast() }
        return copy
    }
}
