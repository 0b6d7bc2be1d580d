import NIOCore
import Synchronization

/// What a listener does with what clients send.
public enum ListenMode: Sendable, Equatable {
    /// Deliver everything to the output (like `nc -l`); input goes to every client.
    case print
    /// Send every message back to its sender.
    case echo
    /// Read and count, nothing else.
    case discard
    /// Send every message from one client to all the others (a chat broker).
    case broadcast
    /// Answer every message with this body (a mock server).
    case respond(ByteBuffer)
}

/// Everything `sockctl listen` asks of a service.
public struct ListenConfiguration: Sendable {
    /// Where to listen; a listener endpoint may be a bare port (bound on loopback).
    public var endpoint: Endpoint
    /// What is done with what clients send; `print` by default.
    public var mode: ListenMode = .print
    /// How what clients send is cut into messages (`--framing`); `raw` by default.
    public var framing: Framing = .raw
    /// The largest message accepted from a client, in bytes (`--max-frame`); 16 MiB by default.
    public var maximumFrameSize = FrameDecoder.defaultMaximumFrameSize
    /// Wait this long after a message arrives before answering it (echo, respond, broadcast).
    public var delay: Duration?
    /// Keep accepting after the first client; without it the service ends when the first
    /// client is done (like `nc -l`).
    public var keepOpen = false
    /// `http://` and `https://`: the status, headers and clock of every answer.
    public var httpResponse = HTTPResponseTemplate()
    /// How the listener binds and whom it lets in.
    public var options = ListenOptions()
    /// A command run for each client, its standard input and output the client's connection
    /// (for UDP, one per client address); the mode is then not used.
    public var exec: ExecConfiguration?

    /// A service on `endpoint` with the defaults: print mode, raw framing, ends after the first client.
    public init(endpoint: Endpoint) {
        self.endpoint = endpoint
    }
}
