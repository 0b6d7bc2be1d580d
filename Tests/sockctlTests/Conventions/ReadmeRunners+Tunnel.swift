import Foundation
import TestSupport

import Glibc

/// README: "Through a proxy — SOCKS5, SOCKS4a, HTTP CONNECT".
extension ReadmeRunners {
    static let tunnel: [ReadmeRunner] = [
        // microsocks with the README's user and password, on a port of the test's.
        ReadmeRunner("sockctl connect localhost:7000 --proxy socks5h://alice:s3cret@127.0.0.1:1080 -v") { run in
            let echo = try await run.listen("127.0.0.1:0", "--echo", "-k")
            let socks = try await ProxyPeer.microsocks(credentials: ("alice", "s3cret"))
            defer { socks.child.signal(SIGKILL) }
            run.replace("localhost:7000", with: "localhost:\(echo.port)")
            run.replace("127.0.0.1:1080", with: "127.0.0.1:\(socks.port)")
            try await run.start()
            try run.type("through the tunnel\n")
            try await run.waitForStdout("through the tunnel\n")
            try await run.waitForStderr("SOCKS5 proxy socks5h://alice@127.0.0.1:\(socks.port) opened the tunnel to localhost:\(echo.port) in ")
            try await run.interrupt(expecting: 130)
        },
    ]
}
