import Foundation
import TestSupport
import Testing

import Glibc

/// Output files (`--json`, `--record`, `capture -w`, `--control` sockets) are opened or checked
/// through one path before the first packet: a path that cannot be written is exit 2 at once,
/// naming the option, the path and the reason; a symbolic link as the last component is never
/// followed, so a link another user planted in a shared directory cannot make root overwrite
/// the file it points to.
@Suite("output paths", .hangGuard)
struct OutputPathTests {
    /// Each command that writes a file, with `path` as that file; `target` is an echo server's
    /// address, `closed` a port nobody listens on (connect: a session that ends at once even if
    /// the path were taken). Neither is reached when the path is refused.
    static func command(_ name: String, writing path: String, target: String, closed: Int) -> (option: String, arguments: [String]) {
        let golden = packageRoot.appendingPathComponent("Tests/Goldens/crafted-ipv4.pcap").path
        switch name {
        case "loadtest": return ("--json", ["loadtest", target, "--requests", "5", "--framing", "line", "--json", path])
        case "report merge": return ("--json", ["report", "merge", "/nonexistent-sockctl/part.json", "--json", path])
        case "connect": return ("--record", ["connect", "127.0.0.1:\(closed)", "--recv-only", "--record", path])
        case "listen": return ("--record", ["listen", "127.0.0.1:0", "--record", path])
        case "proxy": return ("--record", ["proxy", "127.0.0.1:0", target, "--record", path])
        case "proxy control": return ("--control", ["proxy", "127.0.0.1:0", target, "--control", "unix:\(path)"])
        default: return ("-w", ["capture", "-r", golden, "-w", path])
        }
    }

    static let commands = ["loadtest", "report merge", "connect", "listen", "proxy", "proxy control", "capture"]

    /// Runs sockctl and returns once it exits; a server that gets as far as listening has not
    /// refused its path: it is killed and that is reported.
    func runRefusing(_ arguments: [String]) async throws -> (status: Int32, stderr: String) {
        let child = try await Child(try sockctlPath(), arguments, name: arguments[0])
        if arguments[0] == "listen" || arguments[0] == "proxy" {
            if (try? await child.waitForStderr("listening on")) != nil {
                child.signal(SIGKILL)
                Issue.record("\(arguments.joined(separator: " ")) started listening instead of refusing its output path")
            }
        }
        return (try await child.wait(), child.stderr)
    }

    /// No such directory, and a directory where the file should be: refused at once with the
    /// reason, before any connection (the echo server sees no client).
    @Test(arguments: commands)
    func anOutputPathThatCannotBeWrittenIsAUsageErrorBeforeAnythingIsSent(command: String) async throws {
        let scratch = try Scratch()
        let server = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "-k", "--echo", "--framing", "line"], name: "echo")
        defer { server.signal(SIGKILL) }
        let target = "127.0.0.1:\(try await server.listeningPort())"
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let missing = "/nonexistent-sockctl/dir/out"
        for (path, reason) in [(missing, "no such directory (/nonexistent-sockctl/dir)"), (scratch.url.path, "is a directory")] {
            let (option, arguments) = Self.command(command, writing: path, target: target, closed: closed.port)
            let result = try await runRefusing(arguments)
            #expect(result.status == 2, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("error: \(option) \(path): \(reason)"), "\(command): \(result.stderr)")
        }
        #expect(!server.stderr.contains("client 1"), "a connection was made: \(server.stderr)")
    }

    /// A `--record` file that cannot be written is refused the same way whichever step of the
    /// set-up finds it — the open (a path under a regular file) or the pcap header (/dev/full:
    /// opened, then no space left) — exit 2 with the reason, before anything is served. (Root
    /// writes into any directory, so a read-only one would not be refused.)
    @Test(arguments: ["connect", "listen", "proxy"])
    func aRecordFileThatCannotBeWrittenIsAUsageErrorWhicheverStepFindsIt(command: String) async throws {
        let scratch = try Scratch()
        let file = scratch.path("file")
        try "".write(toFile: file, atomically: false, encoding: .utf8)
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let refusals = [
            ("\(file)/out", "--record \(file)/out: a component of the path is not a directory"),
            ("/dev/full", "recording to /dev/full: /dev/full: no space left on device"),
        ]
        for (path, reason) in refusals {
            let (_, arguments) = Self.command(command, writing: path, target: "127.0.0.1:\(closed.port)", closed: closed.port)
            let result = try await runRefusing(arguments)
            #expect(result.status == 2, "\(command) \(path): \(result.stderr)")
            #expect(result.stderr.contains("sockctl \(command): error: \(reason)"), "\(command): \(result.stderr)")
        }
    }

    /// As root, in a sticky world-writable directory (as /tmp), `nobody` plants a symbolic link
    /// to root's own 0600 file under the name root is about to write: every command refuses the
    /// link, and the file it points to is left as it was. (The host's fs.protected_symlinks is 0.)
    @Test(.enabled(if: geteuid() == 0, "needs root, to plant the link as another user"), arguments: commands)
    func aSymbolicLinkPlantedByAnotherUserIsNeverFollowed(command: String) async throws {
        let scratch = try Scratch()
        // Reachable by nobody whatever the umask was when it was made (a test binding a Unix
        // socket in this process sets 077 for a moment).
        #expect(chmod(scratch.url.path, 0o755) == 0)
        let shared = scratch.path("shared")
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        #expect(chmod(shared, 0o1777) == 0)
        let victim = scratch.path("root-only")
        try "root's own file\n".write(toFile: victim, atomically: false, encoding: .utf8)
        #expect(chmod(victim, 0o600) == 0)
        let link = "\(shared)/out"
        let planted = try await run(try tool("setpriv"), ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "ln", "-s", victim, link])
        #expect(planted.status == 0, "planting the link as nobody: \(planted.stderr)")
        var info = stat()
        #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK && info.st_uid != 0, "the link is nobody's")

        let server = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "-k", "--echo", "--framing", "line"], name: "echo")
        defer { server.signal(SIGKILL) }
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let (option, arguments) = Self.command(command, writing: link, target: "127.0.0.1:\(try await server.listeningPort())", closed: closed.port)
        let result = try await runRefusing(arguments)
        #expect(result.status == 2, "\(command): \(result.stderr)")
        #expect(result.stderr.contains("\(option) \(link): is a symbolic link; refusing to follow it (give the target path itself)"), "\(command): \(result.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "root's own file\n", "\(command) wrote through the link")
        #expect(stat(victim, &info) == 0 && info.st_mode & 0o7777 == 0o600)
    }

    /// A `--json` report is written whole or not at all: an existing file keeps its content
    /// until the new report replaces it, and a device (a null device of the test's own, made as
    /// root) is written in place, not replaced.
    @Test func aJSONReportReplacesTheOldFileWholeAndWritesDevicesInPlace() async throws {
        let scratch = try Scratch()
        let server = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "-k", "--echo", "--framing", "line"], name: "echo")
        defer { server.signal(SIGKILL) }
        let target = "127.0.0.1:\(try await server.listeningPort())"
        let file = scratch.path("r.json")
        try "old\n".write(toFile: file, atomically: false, encoding: .utf8)
        let run1 = try await run(try sockctlPath(), ["loadtest", target, "--requests", "3", "--framing", "line", "--json", file])
        #expect(run1.status == 0, "\(run1.stderr)")
        #expect(number(try jsonObject(atPath: file), "messages/received") == 3)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter { $0 != "r.json" }
        #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")
        guard geteuid() == 0 else { return }
        let device = scratch.path("null")
        let made = try await run(try tool("mknod"), [device, "c", "1", "3"])
        #expect(made.status == 0, "\(made.stderr)")
        let toDevice = try await run(try sockctlPath(), ["loadtest", target, "--requests", "3", "--framing", "line", "--json", device])
        #expect(toDevice.status == 0, "\(toDevice.stderr)")
        var info = stat()
        #expect(stat(device, &info) == 0 && info.st_mode & S_IFMT == S_IFCHR, "the device was replaced")
    }
}
