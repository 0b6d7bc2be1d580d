import Foundation

#if canImport(Glibc)
import Glibc
#endif

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
