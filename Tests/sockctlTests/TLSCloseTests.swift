import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A TLS client that leaves without a close_notify (most do: Python's `ssl`, a process that
/// exits) is let go at once. The listener's own TLS close would otherwise wait its 500 ms
/// shutdown timeout for a close_notify that can no longer come after the client's FIN.
/// Serial phase (`make test`): what is checked is a duration.
@Suite struct TLSCloseTests {
    func listener(_ scheme: String, scratch: Scratch) async throws -> (Child, Int) {
        let dir = try await TestCertificates.shared.directory()
        let listener = try Child(try sockctlPath(), ["listen", "\(scheme)://127.0.0.1:0", "--cert", "\(dir)/server.pem", "--key", "\(dir)/server.key", "--echo", "-v"],
                                 scratch: scratch, name: "listener")
        return (listener, try await listener.listeningPort())
    }

    /// The duration of the listener's "client 1 … disconnected after 8.187ms" line.
    func disconnectedAfter(_ listener: Child) async throws -> Duration {
        let text = try await listener.waitForStderr("disconnected after")
        guard let line = text.split(separator: "\n").first(where: { $0.contains("disconnected after") }),
              let figure = line.split(separator: "disconnected after ").last?.split(separator: " ").first
        else { throw HarnessError("no duration in: \(text)") }
        let digits = figure.prefix { $0.isNumber || $0 == "." }
        guard let value = Double(digits) else { throw HarnessError("no duration in: \(line)") }
        switch figure.dropFirst(digits.count) {
        case "us", "µs": return .microseconds(value)
        case "ms": return .milliseconds(value)
        case "s": return .seconds(value)
        default: throw HarnessError("unknown unit in: \(line)")
        }
    }

    @Test func aRaggedTLSClientIsDisconnectedAtOnce() async throws {
        let scratch = try Scratch()
        let (listener, port) = try await listener("tls", scratch: scratch)
        defer { listener.signal(SIGKILL) }
        // Sends a line, reads its echo, ends its side without a close_notify (a FIN) and reads
        // until the listener closes.
        let script = """
            import socket, ssl, sys
            context = ssl.create_default_context(cafile=sys.argv[2])
            raw = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
            tls = context.wrap_socket(raw, server_hostname="localhost")
            tls.sendall(b"hello\\n")
            got = b""
            while not got.endswith(b"\\n"):
                chunk = tls.recv(100)
                if not chunk: break
                got += chunk
            sys.stdout.write(got.decode())
            tls.shutdown(socket.SHUT_WR)  # drops the TLS layer: no close_notify, then a FIN
            while tls.recv(100): pass
            tls.close()
            """
        let dir = try await TestCertificates.shared.directory()
        let client = try await run(try tool("python3"), ["-c", script, "\(port)", "\(dir)/ca.pem"], scratch: scratch)
        #expect(client.status == 0, "\(client.stderr)")
        #expect(String(decoding: client.stdout, as: UTF8.self) == "hello\n")
        let after = try await disconnectedAfter(listener)
        #expect(after < .milliseconds(400), "\(listener.stderr)")
        #expect(try await listener.wait(timeout: .seconds(10)) == 0)
    }

    @Test func aWebSocketClientThatLeavesIsDisconnectedAtOnce() async throws {
        let scratch = try Scratch()
        let (listener, port) = try await listener("wss", scratch: scratch)
        defer { listener.signal(SIGKILL) }
        let input = scratch.path("input")
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: input))
        let dir = try await TestCertificates.shared.directory()
        let client = try await run(try sockctlPath(), ["connect", "wss://127.0.0.1:\(port)", "--cafile", "\(dir)/ca.pem"], stdin: .file(input), scratch: scratch)
        #expect(client.status == 0, "\(client.stderr)")
        #expect(String(decoding: client.stdout, as: UTF8.self) == "hello\n")
        let after = try await disconnectedAfter(listener)
        #expect(after < .milliseconds(400), "\(listener.stderr)")
        #expect(try await listener.wait(timeout: .seconds(10)) == 0)
    }
}
