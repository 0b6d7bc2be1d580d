import NIOCore
import NIOWebSocket

/// Text or binary: the two kinds of WebSocket data message.
public enum WebSocketMessageKind: String, Sendable, Hashable {
    case text
    case binary

    var opcode: WebSocketOpcode { self == .text ? .text : .binary }
}

/// An outbound event that sets the kind of the next message written on a WebSocket connection
/// (otherwise the options' kind): how a relay passes a message on as the kind it came as.
struct WebSocketNextMessageKind {
    let kind: WebSocketMessageKind
}
