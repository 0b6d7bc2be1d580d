import Foundation
import TestSupport
import Testing

/// The error line itself: one prefix for the parser's refusals and the commands' own failures,
/// never one message inside another, a negative number refused as one, and a mistyped
/// subcommand or option answered with the name that was meant.
@Suite("error lines", .hangGuard)
struct ErrorLineTests {
    /// The whole of stderr for each command line, exit status 2, nothing on stdout.
    static let refusals: [([String], String)] = [
        // Mistyped subcommands: the nearest one, or the list.
        (["conect", "127.0.0.1:7000"], "sockctl: error: unknown subcommand 'conect' (did you mean connect?)"),
        (["lisen", "0"], "sockctl: error: unknown subcommand 'lisen' (did you mean listen?)"),
        (["loadtset"], "sockctl: error: unknown subcommand 'loadtset' (did you mean loadtest?)"),
        (["report", "merg", "a.json"], "sockctl report: error: unknown subcommand 'merg' (did you mean merge?)"),
        (["frobnicate"], "sockctl: error: unknown subcommand 'frobnicate' (expected one of connect, listen, send, proxy, replay, loadtest, report, capture)"),
        // Mistyped options: the nearest name, the same name with a qualifying word, the command that has it.
        (["--verison"], "sockctl: error: unknown option '--verison' (did you mean --version?)"),
        (["loadtest", "127.0.0.1:1", "--conections", "5"], "sockctl loadtest: error: unknown option '--conections' for loadtest (did you mean --connections?)"),
        (["proxy", ":8000", "127.0.0.1:7000", "--cafile", "ca.pem"], "sockctl proxy: error: unknown option '--cafile' for proxy (did you mean --upstream-cafile?)"),
        (["connect", "tls://127.0.0.1:1", "--upstream-cafile", "ca.pem"], "sockctl connect: error: unknown option '--upstream-cafile' for connect (did you mean --cafile?)"),
        (["listen", "0", "--insecure"], "sockctl listen: error: unknown option '--insecure' for listen (--insecure is an option of connect, send, replay and loadtest)"),
        (["send", "127.0.0.1:1", "x", "-timeout", "2s"], "sockctl send: error: unknown option '-timeout' for send (did you mean --timeout?)"),
        // An unknown option is reported as one, wherever it stands (not as a bad endpoint after it).
        (["connect", "--frobnicate", "2", "127.0.0.1:9"], "sockctl connect: error: unknown option '--frobnicate' for connect (see sockctl connect --help)"),
        // Negative numbers: refused as negative, not as a missing value.
        (["loadtest", "127.0.0.1:1", "-c", "-5"], "sockctl loadtest: error: -c must not be negative (got -5)"),
        (["loadtest", "127.0.0.1:1", "--connections=-5"], "sockctl loadtest: error: --connections must not be negative (got -5)"),
        (["listen", "0", "--max-clients", "-3"], "sockctl listen: error: --max-clients must not be negative (got -3)"),
        (["connect", "127.0.0.1:1", "--reconnect", "-3"], "sockctl connect: error: --reconnect must not be negative (got -3)"),
        (["connect", "127.0.0.1:1", "--idle-timeout", "-1s"], "sockctl connect: error: --idle-timeout must not be negative (got -1s)"),
        (["loadtest", "127.0.0.1:1", "--message", "-1"], "sockctl loadtest: error: --message needs a value; for one that starts with '-', write --message=-1"),
        // Never nested: the reason alone, with the expected form.
        (["connect", "x"], "sockctl connect: error: invalid endpoint 'x': missing port (expected HOST:PORT, e.g. 127.0.0.1:7000)"),
        (["connect", "127.0.0.1:1", "--connect-timeout", "soon"], "sockctl connect: error: invalid --connect-timeout 'soon' (expected a duration such as 500ms, 2s, 1m)"),
        (["loadtest", "127.0.0.1:1", "--io", "fast"], "sockctl loadtest: error: invalid --io 'fast' (expected one of auto, events or threads)"),
        (["loadtest", "127.0.0.1:1", "-c"], "sockctl loadtest: error: -c needs a value (expected a whole number such as 10)"),
        (["connect"], "sockctl connect: error: missing <endpoint> (expected an endpoint such as 127.0.0.1:7000, udp://[::1]:53, unix:/run/app.sock)"),
        (["connect", "127.0.0.1:1", "127.0.0.1:2"], "sockctl connect: error: unexpected argument '127.0.0.1:2' (connect takes <endpoint>)"),
        // The commands' own refusals carry the same prefix.
        (["connect", "127.0.0.1:1", "--send-only", "--recv-only"], "sockctl connect: error: --send-only and --recv-only exclude each other"),
    ]

    @Test(arguments: refusals)
    func refusalsAreOneLineWithTheCommandsPrefix(arguments: [String], line: String) async throws {
        let result = try await run(try sockctlPath(), arguments)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == line + "\n", "\(arguments)")
    }

    /// An error a command finds while running, outside its own diagnostics, has its prefix too.
    @Test func runTimeErrorsNameTheCommand() async throws {
        let result = try await run(try sockctlPath(), ["loadtest", "127.0.0.1:1", "--message-file", "/nonexistent/m.bin", "--duration", "1s"])
        #expect(result.status == 2)
        #expect(result.stderr == "sockctl loadtest: error: --message-file /nonexistent/m.bin: No such file or directory\n", "\(result.stderr)")
        let capture = try await run(try sockctlPath(), ["capture", "-r", "/nonexistent/x.pcap"])
        #expect(capture.stderr == "sockctl capture: error: /nonexistent/x.pcap: No such file or directory\n", "\(capture.stderr)")
    }
}
