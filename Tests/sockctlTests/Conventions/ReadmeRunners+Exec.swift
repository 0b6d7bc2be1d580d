import Foundation
import TestSupport

/// README: "A shell on a port for debugging".
extension ReadmeRunners {
    static let exec: [ReadmeRunner] = [
        // Two clients, one after the other (-k): each is greeted with its own port and gets a shell.
        ReadmeRunner(#"sockctl listen 127.0.0.1:7000 -k --sh-exec 'echo "hello $SOCKCTL_PEER_ADDR:$SOCKCTL_PEER_PORT"; exec /bin/sh -i 2>&1'"#) { run in
            run.replace("127.0.0.1:7000", with: "127.0.0.1:0")
            try await run.start()
            let port = try await run.listeningPort()
            for client in 1...2 {
                let shell = try await run.sockctl(["connect", "127.0.0.1:\(port)"], stdin: .file(try inputFile(run, "echo \"two words\" | wc -w; exit 3\n")))
                try run.expect(shell.stdout.hasPrefix("hello 127.0.0.1:"), "client \(client) was greeted with '\(shell.stdout)'")
                try run.expect(shell.stdout.contains("2\n"), "client \(client)'s shell printed '\(shell.stdout)'")
                try await run.waitForStderr("client \(client): command exited with status 3")
            }
            try await run.interrupt(expecting: 0)
            try run.expectStderr(contains: "summary: 2 clients")
        },
    ]

    private static func inputFile(_ run: ExampleRun, _ text: String) throws -> String {
        try run.write("shell-input", text)
        return run.path("shell-input")
    }
}
