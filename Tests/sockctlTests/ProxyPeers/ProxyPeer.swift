import Foundation
import TestSupport

import Glibc

/// A proxy server for the client-proxy tests: microsocks, dante (danted), tinyproxy or
/// `ncat --proxy-type http`, started by the test in the foreground with its own config file in a
/// scratch directory, on a port the test picked (tried again on another port if that one was
/// taken meanwhile), waited for until it listens, and stopped by its PID.
final class ProxyPeer: Sendable {
    let child: Child
    let port: Int
    /// Keeps the config directory for as long as the peer runs.
    private let scratch: Scratch

    private init(child: Child, port: Int, scratch: Scratch) {
        self.child = child
        self.port = port
        self.scratch = scratch
    }

    /// microsocks on 127.0.0.1, with `-u USER -P PASSWORD` when `credentials` are given.
    static func microsocks(credentials: (String, String)? = nil) async throws -> ProxyPeer {
        try await start("microsocks") { port, _ in
            var arguments = ["-i", "127.0.0.1", "-p", "\(port)"]
            if let (user, password) = credentials { arguments += ["-u", user, "-P", password] }
            return (try tool("microsocks"), arguments)
        }
    }

    /// danted with no authentication, one process, letting clients reach 127.0.0.1 on
    /// `allowedPort` only (any other destination: SOCKS5 reply 0x02, not allowed by ruleset).
    static func dante(allowedPort: Int) async throws -> ProxyPeer {
        try await start("danted") { port, scratch in
            let config = """
                logoutput: stderr
                internal: 127.0.0.1 port = \(port)
                external: 127.0.0.1
                clientmethod: none
                socksmethod: none
                user.unprivileged: nobody
                client pass { from: 127.0.0.0/8 to: 0.0.0.0/0 }
                socks pass { from: 127.0.0.0/8 to: 127.0.0.1/32 port = \(allowedPort) }
                socks block { from: 0.0.0.0/0 to: 0.0.0.0/0 log: connect error }

                """
            try config.write(toFile: scratch.path("danted.conf"), atomically: true, encoding: .utf8)
            return (try tool("danted"), ["-f", scratch.path("danted.conf"), "-p", scratch.path("danted.pid"), "-N", "1"])
        }
    }

    /// tinyproxy in the foreground (`-d`), asking for Basic credentials, CONNECT allowed to
    /// `allowedPort` only (any other: `403 Access violation`).
    static func tinyproxy(allowedPort: Int, user: String, password: String) async throws -> ProxyPeer {
        try await start("tinyproxy") { port, scratch in
            let config = """
                Port \(port)
                Listen 127.0.0.1
                Timeout 600
                MaxClients 50
                LogLevel Info
                ConnectPort \(allowedPort)
                BasicAuth \(user) \(password)

                """
            try config.write(toFile: scratch.path("tinyproxy.conf"), atomically: true, encoding: .utf8)
            return (try tool("tinyproxy"), ["-d", "-c", scratch.path("tinyproxy.conf")])
        }
    }

    /// `ncat --proxy-type http -l` (CONNECT and plain HTTP, no credentials).
    static func ncatHTTP() async throws -> ProxyPeer {
        try await start("ncat-proxy") { port, _ in
            (try tool("ncat"), ["--proxy-type", "http", "-k", "-l", "127.0.0.1", "\(port)"])
        }
    }

    /// Stops the peer (SIGTERM, by PID) and waits for it to exit.
    func stop() async {
        child.signal(SIGTERM)
        _ = try? await child.wait()
    }

    /// Starts `make`'s command on a port the kernel suggests, until one is still free when the
    /// peer binds it (at most 20 tries), and waits until the peer listens on it.
    private static func start(_ name: String, _ make: (Int, Scratch) throws -> (String, [String])) async throws -> ProxyPeer {
        for _ in 0..<20 {
            guard let port = PortBlock.suggestedPort() else { continue }
            let scratch = try Scratch()
            let (executable, arguments) = try make(port, scratch)
            let child = try await Child(executable, arguments, name: name)
            if try await child.listens(on: port) { return ProxyPeer(child: child, port: port, scratch: scratch) }
            child.signal(SIGKILL)
            _ = try? await child.wait()
        }
        throw HarnessError("\(name) found no free port to listen on")
    }
}

extension Child {
    /// Waits until this process listens on TCP `port` (its own sockets, in /proc): true, or
    /// false once it has exited without (the port was taken meanwhile). A peer that says
    /// nothing when it is ready is looked at again every 10 ms.
    func listens(on port: Int) async throws -> Bool {
        while isRunning {
            if (try? listeningTCPPort()) == port { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}
