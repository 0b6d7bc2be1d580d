import Foundation
import TestSupport
import Testing

import Glibc

/// The adversarial suite, the proxy's control socket: commands a careless script or a hostile
/// local user sends — numbers that overflow, shares out of range, bytes that are not text, a line
/// that never ends. Each is answered with one `error:` line (control characters shown as `\xNN`)
/// or, for a line over 4096 bytes, ends that client; nothing changes, and the proxy keeps relaying.
@Suite("adversarial: hostile control commands", .hangGuard)
struct HostileControlTests {
    /// Each hostile command and the answer's beginning.
    static let commands: [(String, String)] = [
        ("add latency=99999999999999999999s", "error: invalid fault 'latency=99999999999999999999s'"),
        ("add latency=9223372036854775807s", "error: invalid fault"),
        ("add latency=1e308s", "error: invalid fault"),
        ("add latency=-5ms", "error: invalid fault"),
        ("add latency=1ms,jitter=9999999999999h", "error: invalid fault"),
        ("add bandwidth=99999999999999999999GB/s", "error: invalid fault"),
        ("add limit=-1", "error: invalid fault"),
        ("add drop=200%", "error: invalid fault 'drop=200%': drop '200%' is not between 0 and 100%"),
        ("add drop=nan%", "error: invalid fault"),
        ("add reset-after=18446744073709551616", "error: invalid fault"),
        ("add close-after-messages=0", "error: invalid fault"),
        ("add slice=1,dir=sideways", "error: invalid fault"),
        ("add slice=1,p=1e400%", "error: invalid fault"),
        ("remove 99999999999999999999", "error: remove needs a fault number"),
        ("remove -1", "error: remove needs a fault number"),
        ("\u{1B}[2J\u{07}", "error: unknown command '\\x1B[2J\\x07'"),
    ]

    @Test func hostileCommandsAreAnsweredAndChangeNothing() async throws {
        let scratch = try Scratch()
        let echo = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "--framing", "line", "-k"], name: "echo")
        let echoPort = try await echo.listeningPort()
        let control = scratch.path("proxy.ctl")
        let proxy = try await Child(try sockctlPath(), ["proxy", "127.0.0.1:0", "127.0.0.1:\(echoPort)", "--control", "unix:\(control)"], name: "proxy")
        let port = try await proxy.listeningPort()
        try await proxy.waitForStderr("control socket on unix:\(control)\n")

        let lines = Self.commands.map(\.0) + ["list"]
        let sent = try await run(try sockctlPath(), ["send", "unix:\(control)"] + lines + ["--framing", "line", "--responses", "\(lines.count)"])
        #expect(sent.status == 0, "\(sent.stderr)")
        let answers = String(decoding: sent.stdout, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        for (index, (command, expected)) in Self.commands.enumerated() {
            let answer = index < answers.count ? String(answers[index]) : "(none)"
            #expect(answer.hasPrefix(expected), "\(command.debugDescription): \(answer)")
        }
        #expect(answers.count > Self.commands.count && answers[Self.commands.count] == "ok 0 faults", "nothing was added: \(answers)")

        // Bytes that are not UTF-8 are answered; a line longer than the limit ends that client.
        let binary = try await onOwnThread { () -> String in
            let socket = try HostilePeer(unixPath: control)
            socket.send([0xFF, 0xFE, 0x00, 0x80, 0x0A])
            socket.send([UInt8](repeating: 0x61, count: 5000))
            return String(decoding: socket.readToEnd(), as: UTF8.self)
        }
        #expect(binary == "error: a command is UTF-8 text (expected add, remove, list or clear)\n")

        let relayed = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "relayed", "--framing", "line"])
        #expect(String(decoding: relayed.stdout, as: UTF8.self) == "relayed\n", "\(relayed.stderr)")
        proxy.signal(SIGINT)
        #expect(try await proxy.wait() == 0, "\(proxy.stderr)")
        echo.signal(SIGINT)
        #expect(try await echo.wait() == 0)
    }
}
