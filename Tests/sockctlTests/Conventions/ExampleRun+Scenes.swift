import Foundation
import NIOCore
import SocketEngine
import TestSupport

import Glibc

/// The scenes several README examples share: servers of each kind on loopback, and the files
/// the README makes in one example and uses in the next (recordings, captures).
extension ExampleRun {
    /// The directory of the test certificates (``TestCertificates``: a CA, and server.pem for
    /// localhost, 127.0.0.1 and ::1 signed by it).
    func certificates() async throws -> String {
        try await TestCertificates.shared.directory()
    }

    /// `sockctl listen SCHEME://127.0.0.1:0PATH --cert --key ARGUMENTS`: a TLS (or wss) server
    /// with the test certificate for localhost and 127.0.0.1.
    func tlsServer(scheme: String = "tls", path: String = "", _ arguments: String...) async throws -> ExampleServer {
        let directory = try await certificates()
        let command = ["\(scheme)://127.0.0.1:0\(path)", "--cert", "\(directory)/server.pem", "--key", "\(directory)/server.key"] + arguments
        return try await listen(command)
    }

    /// `sockctl listen ARGUMENTS`, for a caller holding an array.
    func listen(_ arguments: [String]) async throws -> ExampleServer {
        let child = try await background(try sockctlPath(), ["listen"] + arguments, name: "server")
        do {
            if arguments.first?.hasPrefix("unix:") == true {
                try await child.waitForStderr("listening on")
                return ExampleServer(child: child, port: 0)
            }
            return ExampleServer(child: child, port: try await child.listeningPort())
        } catch {
            throw ExampleFailure("the example's server (sockctl listen \(arguments.joined(separator: " "))) did not start: \(error)\n  its stderr: \(child.stderr)")
        }
    }

    /// The port the example's own listener (listen, proxy) printed in its "listening on" line.
    func listeningPort() async throws -> Int {
        guard let process else { throw ExampleFailure("the runner did not start the example") }
        return try await process.listeningPort()
    }

    /// Python's http.server on 127.0.0.1, serving the working directory.
    func httpServer() async throws -> ExampleServer {
        let child = try await background(try tool("python3"), ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", directory], name: "http.server")
        let text = try await child.waitForStdout(") ...")
        guard let port = text.firstMatch(of: #/port (\d+)/#).flatMap({ Int($0.1) }) else { throw ExampleFailure("no port in http.server's: \(text)") }
        return ExampleServer(child: child, port: port)
    }

    /// The test suite's out-of-order JSON line server (CorrelationPeers/out_of_order_server.py).
    func outOfOrderServer(_ arguments: [String]) async throws -> ExampleServer {
        let script = packageRoot.appendingPathComponent("Tests/sockctlTests/CorrelationPeers/out_of_order_server.py").path
        let child = try await background(try tool("python3"), [script] + arguments, name: "out-of-order-server")
        let text = try await child.waitForStderr("listening on 127.0.0.1:")
        guard let port = text.firstMatch(of: #/listening on 127\.0\.0\.1:(\d+)/#).flatMap({ Int($0.1) }) else {
            throw ExampleFailure("no port in the out-of-order server's: \(text)")
        }
        return ExampleServer(child: child, port: port)
    }

    /// `name` made as README's "Real traffic as load" makes prod.pcap: `sockctl listen 0 --echo
    /// -k --framing line --record NAME`, `streams` clients each sending the lines `ping 1` …
    /// `ping MESSAGES` and reading their echoes, then SIGINT (which completes the file).
    func recordLineSessions(_ name: String, streams: Int, messages: Int) async throws {
        let recorder = try await listen(["127.0.0.1:0", "--echo", "-k", "--framing", "line", "--record", name])
        let lines = (1...messages).map { "ping \($0)\n" }.joined()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<streams {
                group.addTask {
                    let connection = try await connect(recorder.address)
                    try await connection.write(ByteBuffer(string: lines))
                    var echoed = 0
                    while echoed < lines.utf8.count, let chunk = try await connection.read() { echoed += chunk.readableBytes }
                    await connection.close()
                }
            }
            try await group.waitForAll()
        }
        try await recorder.child.waitForStderr("disconnected", count: streams)
        recorder.child.signal(SIGINT)
        guard try await recorder.child.wait() == 0 else { throw ExampleFailure("recording \(name) failed: \(recorder.child.stderr)") }
    }

    /// demo.pcap as README's "record and replay" records it: two JSON lines through `sockctl
    /// connect --framing crlf --record` to a crlf echo server.
    func recordDemo(_ name: String) async throws {
        let echo = try await listen("127.0.0.1:0", "--echo", "--framing", "crlf")
        try write(".demo-input", "{\"op\":\"login\",\"user\":\"ann\"}\n{\"op\":\"ping\",\"ts\":1700000000}\n")
        try await sockctl(["connect", echo.address, "--framing", "crlf", "--record", name], stdin: .file(path(".demo-input")))
    }

    /// `sockctl proxy :0 UPSTREAM --framing line --control unix:SOCKET` to a line echo server, as
    /// README's proxy recipes start one in the background.
    @discardableResult
    func proxyWithControl(_ socket: String) async throws -> ExampleServer {
        let echo = try await listen("127.0.0.1:0", "--echo", "-k", "--framing", "line")
        let proxy = try await background(try sockctlPath(), ["proxy", ":0", echo.address, "--framing", "line", "--control", "unix:\(path(socket))"], name: "proxy")
        return ExampleServer(child: proxy, port: try await proxy.listeningPort())
    }
}
