import ArgumentParser
import SocketEngine

/// What a WebSocket client adds to its opening handshake (connect, send, replay, loadtest):
/// extra headers and the Origin.
struct WebSocketHandshakeOptions: ParsableArguments {
    @Option(
        name: .customLong("header"),
        help: ArgumentHelp("Extra header for the WebSocket handshake request (repeatable).", valueName: "'name: value'"),
        transform: HandshakeHeader.init(parsing:)
    )
    var headers: [HandshakeHeader] = []

    @Option(name: .long, help: ArgumentHelp("Origin header of the WebSocket handshake.", valueName: "origin"), transform: ArgumentValues.origin)
    var origin: String?

    var anyGiven: Bool { !headers.isEmpty || origin != nil }

    func apply(to options: inout WebSocketOptions) {
        options.origin = origin
        options.headers += headers.map { (name: $0.name, value: $0.value) }
    }
}

/// One `--header 'Name: value'`: a token name, a value without line breaks, and not one of the
/// headers the handshake sets itself.
struct HandshakeHeader: Sendable {
    let name: String
    let value: String

    static let reserved: Set<String> = ["upgrade", "connection", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions"]

    @Sendable init(parsing header: String) throws {
        let form = "expected 'Name: value', e.g. 'Authorization: Bearer T'"
        guard let colon = header.firstIndex(of: ":") else {
            throw UsageError(form)
        }
        name = String(header[..<colon])
        value = String(header[header.index(after: colon)...]).trimmingCharacters(in: " \t")
        guard !name.isEmpty, name.allSatisfy(HTTPToken.isTokenCharacter) else {
            throw UsageError("'\(name)' is not a header name (\(form))")
        }
        guard !value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw UsageError("the value contains a line break or NUL (\(form))")
        }
        if Self.reserved.contains(name.lowercased()) {
            throw UsageError("'\(name)' is set by the WebSocket handshake itself")
        }
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
