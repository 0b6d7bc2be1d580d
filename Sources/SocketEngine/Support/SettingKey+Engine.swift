/// The settings the engine's own texts name (errors, log lines, refusal reasons).
extension SettingKey {
    /// Which field of a message is its correlation key (`send --correlate`).
    package static let correlate = SettingKey("correlate", plainName: "the correlation key")
    /// How many replies to wait for.
    package static let responses = SettingKey("responses", plainName: "the reply count")
    /// How a stream is cut into messages.
    package static let framing = SettingKey("framing", plainName: "a framing")
    /// Keep the connection open at the end of input.
    package static let noShutdown = SettingKey("no-shutdown", plainName: "keep open at end of input")
    /// Close the connection at the end of input.
    package static let closeOnEOF = SettingKey("close-on-eof", plainName: "close at end of input")
    /// Skip the verification of the peer's certificate.
    package static let insecure = SettingKey("insecure", plainName: "insecure mode")
    /// The client addresses admitted.
    package static let allow = SettingKey("allow", plainName: "the allowed addresses")
    /// The client addresses refused.
    package static let deny = SettingKey("deny", plainName: "the denied addresses")
    /// The most clients served at once.
    package static let maxClients = SettingKey("max-clients", plainName: "the client limit")
    /// The HTTP request method.
    package static let method = SettingKey("method", plainName: "the request method")
    /// A header on what this side sends (the WebSocket handshake, an HTTP request or response).
    package static let header = SettingKey("header", plainName: "a header")
    /// The status of the HTTP responses a test server gives.
    package static let status = SettingKey("status", plainName: "the response status")

    /// The destinations a SOCKS5 or HTTP CONNECT client of the proxy may ask for.
    package static let allowDestination = SettingKey("allow-destination", plainName: "the allowed destinations")
    /// The destinations a SOCKS5 or HTTP CONNECT client of the proxy may not ask for.
    package static let denyDestination = SettingKey("deny-destination", plainName: "the denied destinations")

    /// Every key the engine declares.
    package static let engineKeys: [SettingKey] = [
        .correlate, .responses, .framing, .noShutdown, .closeOnEOF, .insecure, .allow, .deny, .maxClients,
        .header, .allowDestination, .denyDestination,
        // .method and .status join this list with the commands that take their flags.
    ]
}
