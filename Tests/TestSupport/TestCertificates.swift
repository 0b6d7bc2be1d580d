import Foundation

import Glibc

/// The test certificates, made once per test run by `scripts/make-test-certs.sh`, awaited (not
/// blocking a cooperative thread while openssl runs).
public actor TestCertificates {
    public static let shared = TestCertificates()
    private var generation: Task<String, any Error>?

    public func directory() async throws -> String {
        if let generation { return try await generation.value }
        let task = Task { () throws -> String in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sockctl-certs-\(getpid())").path
            let script = packageRoot.appendingPathComponent("scripts/make-test-certs.sh").path
            let result = try await run("/bin/bash", [script, directory])
            guard result.status == 0 else { throw HarnessError("make-test-certs.sh exited with \(result.status): \(result.stderr)") }
            return directory
        }
        generation = task
        return try await task.value
    }
}

/// `openssl s_server` with the test certificate NAME.pem/NAME.key on a port the kernel picks
/// (it says which: `ACCEPT 127.0.0.1:PORT`), its stdin held open (it quits at EOF); what it
/// decrypts goes to its stdout. The caller stops it.
public func openSSLServer(_ name: String, _ extra: [String] = []) async throws -> (Child, Int) {
    let dir = try await TestCertificates.shared.directory()
    let server = try await Child(try tool("openssl"), ["s_server", "-accept", "127.0.0.1:0", "-cert", "\(dir)/\(name).pem", "-key", "\(dir)/\(name).key"] + extra,
                                 stdin: .pipe, name: "s_server")
    let text = try await server.waitForStdout("ACCEPT ")
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT ") }),
          let port = line.split(separator: ":").last.flatMap({ Int($0.prefix { $0.isNumber }) })
    else { throw HarnessError("no port in s_server's: \(text)") }
    return (server, port)
}
