import Foundation

import Glibc

/// haproxy (Debian's), started by a test in the foreground (`-db`) with a configuration of the
/// test's own on loopback, stopped by PID. haproxy cannot bind port 0, so each start tries
/// ports the kernel suggests and starts again on the next ones when a bind fails.
public final class HAProxy: Sendable {
    public let child: Child
    /// The ports the configuration was written with, in the order it asked for them.
    public let ports: [Int]
    private let scratch: Scratch

    private init(child: Child, ports: [Int], scratch: Scratch) {
        self.child = child
        self.ports = ports
        self.scratch = scratch
    }

    /// Starts haproxy with `configuration(ports)` (`count` ports of its own to bind); returns
    /// once it has bound them (it says on stdout which polling mechanism it uses after binding, with -V).
    public static func start(ports count: Int, _ configuration: @Sendable ([Int]) -> String) async throws -> HAProxy {
        let scratch = try Scratch()
        var said = ""
        for _ in 0..<5 {
            let ports = (0..<count).compactMap { _ in PortBlock.suggestedPort() }
            guard ports.count == count else { continue }
            let path = scratch.path("haproxy.cfg")
            try Data(configuration(ports).utf8).write(to: URL(fileURLWithPath: path))
            let child = try await Child(try tool("haproxy"), ["-f", path, "-db", "-V"], name: "haproxy")
            do {
                _ = try await child.waitForStdout("as the polling mechanism")
                return HAProxy(child: child, ports: ports, scratch: scratch)
            } catch {
                _ = try? await child.wait()
                said = child.stderr + String(decoding: child.stdout, as: UTF8.self)
                guard said.contains("cannot bind") else { throw HarnessError("haproxy did not start: \(said)") }
            }
        }
        throw HarnessError("haproxy found no free ports in 5 tries; it said: \(said)")
    }

    /// Stops it (SIGTERM) and waits for its exit.
    public func stop() async throws {
        child.signal(SIGTERM)
        _ = try await child.wait()
    }

    deinit {
        if child.isRunning { child.signal(SIGKILL) }
    }
}
