import NIOCore
import NIOWebSocket

/// Text or binary: the two kinds of WebSocket data message.
public enum WebSocketMessageKind: String, Sendable, Hashable {
    case text
    case binary

    var opcode: WebSocketOpcode { self == .text ? .text : .binary }
}
