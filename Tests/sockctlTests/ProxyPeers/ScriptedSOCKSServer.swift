import Foundation
import TestSupport

/// A one-client SOCKS5 server in Python that breaks the protocol on purpose, for the refusals a
/// real server rarely shows: `half-reply` answers the greeting, then sends 5 of the reply's 10
/// bytes and closes; `close` closes once it has read the greeting (a FIN, not a reset); `garbage` answers the
/// greeting with an HTTP line. It prints its port, then serves its clients one after another until it is killed.
enum ScriptedSOCKSServer {
    static let script = #"""
        import socket, sys
        mode = sys.argv[1]
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        print(server.getsockname()[1], flush=True)
        while True:
            client, _ = server.accept()
            if mode == "half-reply":
                client.recv(16)
                client.sendall(b"\x05\x00")
                client.recv(300)
                client.sendall(b"\x05\x00\x00\x01\x7f")
            elif mode == "close":
                client.recv(16)
            elif mode == "garbage":
                client.recv(16)
                client.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
                client.recv(16)
            client.close()
        """#

    /// Starts the server in `mode`; returns it and its port.
    static func start(_ mode: String) async throws -> (Child, Int) {
        let child = try await Child(try tool("python3"), ["-c", script, mode], name: "socks-\(mode)")
        let text = try await child.waitForStdout("\n")
        guard let port = Int(text.prefix { $0.isNumber }) else { throw HarnessError("no port from the scripted server: \(text)") }
        return (child, port)
    }
}
