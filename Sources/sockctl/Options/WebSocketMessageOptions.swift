import ArgumentParser
import NIOCore
import SocketEngine

/// The WebSocket options of both ends (connect, send, listen, replay, loadtest): message type,
/// subprotocols, pings, the close frame, the largest message and compression. They become the engine's
/// ``WebSocketOptions``; given for an endpoint that is not `ws://` or `wss://` they are refused.
struct WebSocketMessageOptions: ParsableArguments {
    @Flag(name: .long, help: "Send binary messages instead of text (ws:// and wss://).")
    var binary = false

    @Option(
        name: .long,
        help: ArgumentHelp("Subprotocol to offer (connect, send) or accept (listen); repeatable, in preference order.", valueName: "name"),
        transform: HTTPToken.checked
    )
    var subprotocol: [String] = []

    @Option(name: .long, help: ArgumentHelp("Send a WebSocket ping this often.", valueName: "dur"))
    var pingInterval: Duration?

    @Option(name: .long, help: ArgumentHelp("Close code sent when this side ends the WebSocket (1000-1003, 1007-1014, 3000-4999).", valueName: "n"))
    var closeCode: Int?

    @Option(name: .long, help: ArgumentHelp("Close reason sent with it (at most 123 bytes of UTF-8).", valueName: "text"))
    var closeReason: String?

    @Option(name: .long, help: ArgumentHelp("Largest WebSocket message accepted; a larger one closes the connection with 1009.", valueName: "size"))
    var maxMessage: ByteSize = .mebibytes(16)

    @Flag(name: .long, help: "Do not offer (connect, send) or accept (listen) permessage-deflate compression of WebSocket messages.")
    var noCompression = false

    /// True when an option that only means something over WebSocket was given.
    var anyGiven: Bool {
        binary || noCompression || !subprotocol.isEmpty || pingInterval != nil || closeCode != nil || closeReason != nil || maxMessage != .mebibytes(16)
    }

    func validate() throws {
        if let pingInterval { _ = try checkedPositive(pingInterval, "--ping-interval") }
        if let closeCode, !(1000...4999).contains(closeCode) || !WebSocketCloseCode.isValidOnTheWire(UInt16(closeCode)) {
            throw UsageError("--close-code \(closeCode) may not be sent (use 1000-1003, 1007-1014 or 3000-4999)")
        }
        if let closeReason, closeReason.utf8.count > 123 {
            throw UsageError("--close-reason is \(closeReason.utf8.count) bytes; at most 123 fit in a close frame")
        }
        _ = try maxMessage.checked("--max-message", within: 1...(1 << 30))
    }

    func apply(to options: inout WebSocketOptions) {
        options.messageKind = binary ? .binary : .text
        options.subprotocols = subprotocol
        if let pingInterval { options.pingInterval = pingInterval }
        if let closeCode { options.closeCode = UInt16(closeCode) }
        if let closeReason { options.closeReason = closeReason }
        options.maximumMessageSize = maxMessage.bytes
        options.compression = !noCompression
    }
}

/// An HTTP token (RFC 9110): what subprotocol and header names are made of.
enum HTTPToken {
    @Sendable static func checked(_ text: String) throws -> String {
        guard HTTPRequestLines.isToken(text) else {
            throw UsageError("not an HTTP token (expected letters, digits and !#$%&'*+-.^_`|~, e.g. chat.v2)")
        }
        return text
    }
}
