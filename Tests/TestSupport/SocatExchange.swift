import Foundation

/// socat as the far end of one bulk exchange: it reads the request (`size` random bytes) to a
/// file, answers with a reply of its own (`size` random bytes) and closes. The tests that pass
/// 16 MiB each way through a proxy send ``requestPath`` and compare both ends with ``check(_:)``.
public struct SocatExchange: Sendable {
    public let server: Child
    /// Where socat listens (127.0.0.1).
    public let port: Int
    public let size: Int
    /// The file the client sends.
    public let requestPath: String
    private let request: Data
    private let reply: Data
    private let receivedPath: String

    public init(size: Int, in scratch: Scratch) async throws {
        self.size = size
        requestPath = scratch.path("request")
        receivedPath = scratch.path("received")
        let replyPath = scratch.path("reply")
        request = try await randomFile(requestPath, bytes: size)
        reply = try await randomFile(replyPath, bytes: size)
        server = try await Child(
            try tool("socat"),
            ["-d", "-d", "-t", "3600", "TCP-LISTEN:0,bind=127.0.0.1,reuseaddr", "SYSTEM:head -c \(size) > \(receivedPath); cat \(replyPath)"],
            name: "socat-server")
        port = try await server.socatPort()
    }

    /// Whether socat got the request intact and `replyReceived` is its reply, byte for byte;
    /// nil when both are, else what is wrong. Call it once socat has exited.
    public func check(_ replyReceived: Data) throws -> String? {
        var wrong: [String] = []
        if try Data(contentsOf: URL(fileURLWithPath: receivedPath)) != request { wrong.append("the server did not get the \(size)-byte request intact") }
        if replyReceived != reply { wrong.append("\(replyReceived.count) of \(reply.count) bytes of the reply came back, not intact") }
        return wrong.isEmpty ? nil : wrong.joined(separator: "; ")
    }
}
