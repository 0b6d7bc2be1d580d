import ArgumentParser
import SocketEngine

/// What a client adds to the head of what it sends (connect, send, replay, loadtest): extra
/// headers (`-H`, as curl's) on the WebSocket handshake request or the HTTP request, and the
/// Origin of a WebSocket handshake.
struct HeaderOptions: ParsableArguments {
    @Option(
        name: [.customShort("H"), .customLong("header")],
        help: ArgumentHelp(
            "Extra header on what this side sends (repeatable): the WebSocket handshake request (ws://, wss://) or the HTTP request (http://, https://; 'name:' with nothing after it sends no such header, the default User-Agent or Host included, as curl).",
            valueName: "'name: value'"
        ),
        transform: HeaderField.init(parsing:)
    )
    var headers: [HeaderField] = []

    @Option(name: .long, help: ArgumentHelp("Origin header of the WebSocket handshake.", valueName: "origin"), transform: ArgumentValues.origin)
    var origin: String?

    var anyGiven: Bool { !headers.isEmpty || origin != nil }

    /// Adds the headers and the Origin to a WebSocket client's handshake; a header the handshake
    /// sets itself is a usage error.
    func apply(to options: inout WebSocketOptions) throws {
        options.origin = origin
        options.headers += try headers.checked(for: .webSocketHandshake)
    }

    /// The headers of an HTTP request, in the order given; a header sockctl sets itself, or
    /// `--origin` (a WebSocket handshake's), is a usage error.
    func httpRequestHeaders() throws -> [(name: String, value: String)] {
        if origin != nil {
            throw UsageError("--origin is the WebSocket handshake's Origin: it needs a ws:// or wss:// endpoint (an HTTP request takes -H 'Origin: …')")
        }
        return try headers.checked(for: .httpRequest)
    }
}

/// What `listen http://` adds to each response it sends: extra headers (`-H`, the same option
/// as a client's, on what this side sends).
struct ResponseHeaderOptions: ParsableArguments {
    @Option(
        name: [.customShort("H"), .customLong("header")],
        help: ArgumentHelp("Extra header on what this side sends (repeatable): each HTTP response (http://, https://).", valueName: "'name: value'"),
        transform: HeaderField.init(parsing:)
    )
    var headers: [HeaderField] = []

    /// The headers of each response, in the order given; one sockctl sets itself is a usage error.
    func httpResponseHeaders() throws -> [(name: String, value: String)] {
        try headers.checked(for: .httpResponse)
    }
}

/// Where a header given on the command line goes: which headers sockctl sets itself there.
enum HeaderUse: Sendable {
    /// A WebSocket client's opening handshake.
    case webSocketHandshake
    /// An HTTP request (connect, send, replay, loadtest).
    case httpRequest
    /// An HTTP response (`listen http://`).
    case httpResponse

    /// The headers sockctl sets itself there, by lowercased name, each with why.
    var reserved: [String: String] {
        switch self {
        case .webSocketHandshake:
            let why = "is set by the WebSocket handshake itself"
            return ["upgrade": why, "connection": why, "sec-websocket-key": why, "sec-websocket-version": why, "sec-websocket-extensions": why]
        case .httpRequest, .httpResponse:
            return [
                "content-length": "is set by sockctl from the body it sends",
                "transfer-encoding": "is set by sockctl: it sends every body with a Content-Length",
            ]
        }
    }
}

/// One `-H 'Name: value'`: a token name and a value without line breaks (which headers sockctl
/// sets itself depends on where it goes: ``HeaderUse``).
struct HeaderField: Sendable {
    /// As given on the command line, for messages.
    let text: String
    let name: String
    let value: String

    @Sendable init(parsing header: String) throws {
        let form = "expected 'Name: value', e.g. 'Authorization: Bearer T'"
        guard let colon = header.firstIndex(of: ":") else {
            throw UsageError(form)
        }
        text = header
        name = String(header[..<colon])
        value = String(header[header.index(after: colon)...]).trimmingCharacters(in: " \t")
        guard HTTPRequestLines.isToken(name) else {
            throw UsageError("'\(name)' is not a header name (\(form))")
        }
        guard !value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw UsageError("the value contains a line break or NUL (\(form))")
        }
    }
}

extension [HeaderField] {
    /// The fields as name-value pairs for `use`; one that sockctl sets itself there is a usage
    /// error naming why: "invalid --header 'Content-Length: 5': 'Content-Length' is set by
    /// sockctl from the body it sends".
    func checked(for use: HeaderUse) throws -> [(name: String, value: String)] {
        let reserved = use.reserved
        return try map { field in
            if let why = reserved[field.name.lowercased()] {
                throw UsageError("invalid --header '\(field.text)': '\(field.name)' \(why)")
            }
            return (field.name, field.value)
        }
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
