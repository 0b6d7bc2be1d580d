import ArgumentParser
import NIOCore
import SocketEngine

/// WebSocket options shared by `connect`, `send` and `listen`.
struct WebSocketMessageOptions: ParsableArguments {
    @Flag(name: .long, help: "Send binary messages instead of text (ws:// and wss://).")
    var binary = false

    @Option(name: .long, help: ArgumentHelp("Subprotocol to offer (connect, send) or accept (listen); repeatable, in preference order.", valueName: "name"))
    var subprotocol: [String] = []

    @Option(name: .long, help: ArgumentHelp("Send a WebSocket ping this often.", valueName: "dur"))
    var pingInterval: String?

    @Option(name: .long, help: ArgumentHelp("Close code sent when this side ends the WebSocket (1000-1003, 1007-1014, 3000-4999).", valueName: "n"))
    var closeCode: String?

    @Option(name: .long, help: ArgumentHelp("Close reason sent with it (at most 123 bytes of UTF-8).", valueName: "text"))
    var closeReason: String?

    @Option(name: .long, help: ArgumentHelp("Largest WebSocket message accepted; a larger one closes the connection with 1009.", valueName: "size"))
    var maxMessage: String = "16MiB"

    /// True when an option that only means something over WebSocket was given.
    var anyGiven: Bool {
        binary || !subprotocol.isEmpty || pingInterval != nil || closeCode != nil || closeReason != nil || maxMessage != "16MiB"
    }

    func apply(to options: inout WebSocketOptions) throws {
        options.messageKind = binary ? .binary : .text
        for name in subprotocol where name.isEmpty || !name.allSatisfy(Self.isTokenCharacter) {
            throw UsageError("invalid --subprotocol '\(name)' (an HTTP token: letters, digits and !#$%&'*+-.^_`|~)")
        }
        options.subprotocols = subprotocol
        if let pingInterval {
            options.pingInterval = try ArgumentValues.positiveDuration(pingInterval, option: "--ping-interval")
        }
        if let closeCode {
            let code = try ArgumentValues.count(closeCode, option: "--close-code", range: 1000...4999)
            guard WebSocketCloseCode.isValidOnTheWire(UInt16(code)) else {
                throw UsageError("--close-code \(code) may not be sent (use 1000-1003, 1007-1014 or 3000-4999)")
            }
            options.closeCode = UInt16(code)
        }
        if let closeReason {
            guard closeReason.utf8.count <= 123 else { throw UsageError("--close-reason is \(closeReason.utf8.count) bytes; at most 123 fit in a close frame") }
            options.closeReason = closeReason
        }
        options.maximumMessageSize = try ArgumentValues.byteSize(maxMessage, option: "--max-message", range: 1...(1 << 30))
    }

    static func isTokenCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "!#$%&'*+-.^_`|~".contains(character))
    }
}

/// Client handshake options of `connect` and `send`.
struct WebSocketHandshakeOptions: ParsableArguments {
    @Option(name: .customLong("header"), help: ArgumentHelp("Extra header for the WebSocket handshake request (repeatable).", valueName: "'name: value'"))
    var headers: [String] = []

    @Option(name: .long, help: ArgumentHelp("Origin header of the WebSocket handshake.", valueName: "origin"))
    var origin: String?

    var anyGiven: Bool { !headers.isEmpty || origin != nil }

    func apply(to options: inout WebSocketOptions) throws {
        options.origin = origin
        for header in headers {
            guard let colon = header.firstIndex(of: ":") else {
                throw UsageError("invalid --header '\(header)' (expected 'Name: value')")
            }
            let name = String(header[..<colon])
            let value = String(header[header.index(after: colon)...]).trimmingCharacters(in: " \t")
            guard !name.isEmpty, name.allSatisfy(WebSocketMessageOptions.isTokenCharacter) else {
                throw UsageError("invalid --header '\(header)': '\(name)' is not a header name")
            }
            guard !value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                throw UsageError("invalid --header '\(header)': the value contains a line break or NUL")
            }
            let reserved = ["upgrade", "connection", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions"]
            if reserved.contains(name.lowercased()) {
                throw UsageError("--header '\(name)' is set by the WebSocket handshake itself")
            }
            options.headers.append((name: name, value: value))
        }
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}

/// `-v` lines for WebSocket events.
enum WebSocketEventRenderer {
    static func render(_ event: WebSocketEvent, diagnostics: Diagnostics) {
        switch event {
        case .upgraded:
            // Said in order by the connected line of connect and send (after the TCP and TLS
            // lines), and by listen's client line.
            break
        case .pingSent(let connection):
            diagnostics.event("\(connection): ping sent")
        case .pongReceived(let connection, let after):
            diagnostics.event("\(connection): pong received" + (after.map { " after \($0.formatted)" } ?? ""))
        case .pingAnswered(let connection):
            diagnostics.event("\(connection): ping received, pong sent")
        case .closeReceived(let connection, let code, let reason):
            let status = code.map(WebSocketCloseCode.describe) ?? "no status (1005)"
            diagnostics.event("\(connection): close received: \(status)" + (reason.isEmpty ? "" : " '\(reason)'"))
        case .closeSent(let connection, let code, let reason):
            diagnostics.event("\(connection): close sent: \(WebSocketCloseCode.describe(code))" + (reason.isEmpty ? "" : " '\(reason)'"))
        case .closedAbnormally(let connection):
            diagnostics.event("\(connection): connection ended without a close frame (1006)")
        case .failed(let connection, let violation):
            diagnostics.event("\(connection): protocol violation: \(violation.reason); closing with \(WebSocketCloseCode.describe(violation.closeCode))")
        }
    }
}
