import Foundation
import TestSupport
import Testing

import Glibc

/// A TLS client that leaves without a close_notify (most do: Python's `ssl`, a process that
/// exits) is let go: the listener logs it as disconnected and serves on. That it is let go *at
/// once* — not after the 500 ms the TLS layer would wait for a close_notify that can no longer
/// come — is checked in the event loop's virtual time (SocketEngineTLSTests.TLSCloseTimingTests)
/// and measured by `make bench`.
@Suite(.hangGuard) struct TLSCloseTests {
    func listener(_ scheme: String) async throws -> (Child, Int) {
        let dir = try await TestCertificates.shared.directory()
        let listener = try await Child(try sockctlPath(), ["listen", "\(scheme)://127.0.0.1:0", "--cert", "\(dir)/server.pem", "--key", "\(dir)/server.key", "--echo", "-v"], name: "listener")
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
        let (listener, port) = try await listener("tls")
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
        let client = try await run(try tool("python3"), ["-c", script, "\(port)", "\(dir)/ca.pem"])
        #expect(client.status == 0, "\(client.stderr)")
        #expect(String(decoding: client.stdout, as: UTF8.self) == "hello\n")
        _ = try await disconnectedAfter(listener)
        #expect(try await listener.wait() == 0)
    }

    @Test func aWebSocketClientThatLeavesIsDisconnectedAtOnce() async throws {
        let scratch = try Scratch()
        let (listener, port) = try await listener("wss")
        defer { listener.signal(SIGKILL) }
        let input = scratch.path("input")
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: input))
        let dir = try await TestCertificates.shared.directory()
        let client = try await run(try sockctlPath(), ["connect", "wss://127.0.0.1:\(port)", "--cafile", "\(dir)/ca.pem"], stdin: .file(input))
        #expect(client.status == 0, "\(client.stderr)")
        #expect(String(decoding: client.stdout, as: UTF8.self) == "hello\n")
        _ = try await disconnectedAfter(listener)
        #expect(try await listener.wait() == 0)
    }
}
