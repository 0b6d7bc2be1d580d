import ArgumentParser
import Capture
import LoadGen
import PacketDecoding
import Recording
import SocketEngine

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
            and files (listen, proxy and capture end on the signal with 0).
            """,
        version: "0.1.0",
        subcommands: [Connect.self, Listen.self, Send.self, Proxy.self, Replay.self, LoadTest.self, Report.self, CaptureCommand.self]
    )

    static func main() async {
        signal(SIGPIPE, SIG_IGN)
        LargeBufferPolicy.returnLargeBuffersToTheSystem()
        let arguments = OptionalValueOptions.normalize(Array(CommandLine.arguments.dropFirst()))
        if let rename = RenamedOptions.misuse(in: arguments) {
            FileDescriptorWriter.standardError.write("sockctl \(rename.command): error: \(rename.message)\n")
            Glibc.exit(2)
        }
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Glibc.exit(0)
        } catch {
            Glibc.exit(status(for: error))
        }
    }

    /// Every way out, mapped to the SPEC's exit statuses: 0 success, 1 failure, 2 usage.
    /// Errors the command already reported carry their status (``CommandFailed``); the
    /// argument parser's own errors are its usage errors; any other is printed here, with the
    /// status ``ExitStatus`` gives it.
    static func status(for error: any Error) -> Int32 {
        switch error {
        case let failed as CommandFailed:
            return failed.status
        case let exit as ExitCode:
            return exit.rawValue
        case is UsageError, is SocketEngineError, is RecordingError, is LoadGenError, is CaptureError, is PacketDecodingError:
            FileDescriptorWriter.standardError.write("sockctl: error: \(ExitStatus.message(error).line)\n")
            return ExitStatus.of(error)
        default:
            let code = exitCode(for: error)
            if code == .success {
                Self.exit(withError: error)
            }
            // The parser's messages can span lines (a list of valid values): one line, always.
            let message = self.message(for: error)
                .split(separator: "\n")
                .map { $0.trimmingCharacters(in: " ") }
                .filter { !$0.isEmpty }
                .joined(separator: "; ")
            FileDescriptorWriter.standardError.write("sockctl: error: \(message)\n")
            return code == .validationFailure ? 2 : code.rawValue
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
