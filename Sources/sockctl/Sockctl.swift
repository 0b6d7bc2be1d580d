import ArgumentParser

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

            Exit status: 0 success, 1 the operation failed (refused, reset, timeout), \
            2 usage error.
            """,
        version: "0.1.0",
        subcommands: [Connect.self, Listen.self, Send.self, Replay.self, LoadTest.self, Report.self, CaptureCommand.self]
    )

    static func main() async {
        signal(SIGPIPE, SIG_IGN)
        let arguments = OptionalValueOptions.normalize(Array(CommandLine.arguments.dropFirst()))
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

    /// Maps every way out to the SPEC's exit statuses: 0 success, 1 failure, 2 usage.
    static func status(for error: any Error) -> Int32 {
        switch error {
        case let failed as CommandFailed:
            return failed.status
        case let usage as UsageError:
            FileDescriptorWriter.standardError.write("sockctl: error: \(usage.message)\n")
            return 2
        case let exit as ExitCode:
            return exit.rawValue
        default:
            let code = exitCode(for: error)
            if code == .validationFailure {
                let message = self.message(for: error)
                    .split(separator: "\n")
                    .map { $0.trimmingCharacters(in: " ") }
                    .filter { !$0.isEmpty }
                    .joined(separator: "; ")
                FileDescriptorWriter.standardError.write("sockctl: error: \(message)\n")
                return 2
            }
            if code == .success {
                Self.exit(withError: error)
            }
            FileDescriptorWriter.standardError.write("sockctl: error: \(self.message(for: error))\n")
            return code.rawValue
        }
    }
}

/// Options whose value is optional on the command line (`--reconnect [N]`): a bare
/// `--reconnect` not followed by a number becomes `--reconnect=DEFAULT` before parsing.
enum OptionalValueOptions {
    static let defaults = ["--reconnect": "5"]

    static func normalize(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                result += arguments[index...]
                break
            }
            if let fallback = defaults[argument] {
                let next = index + 1 < arguments.count ? arguments[index + 1] : ""
                if next.isEmpty || !next.allSatisfy(\.isNumber) {
                    result.append("\(argument)=\(fallback)")
                    index += 1
                    continue
                }
            }
            result.append(argument)
            index += 1
        }
        return result
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
