/// What two WebSocket peers agreed on for permessage-deflate (RFC 7692 §7.1), once the
/// `Sec-WebSocket-Extensions` of the handshake have been read: per direction, whether the
/// sender empties its compression context after each message and the largest LZ77 window it
/// may use.
///
/// ```
/// offer     permessage-deflate; client_max_window_bits, permessage-deflate; client_no_context_takeover; ...
/// response  permessage-deflate; server_no_context_takeover; client_max_window_bits=10
/// agreed    server: window 15, no context takeover; client: window 10, context kept
/// ```
///
/// The client offers ``clientOffer``; the server accepts the first offer it can honour
/// (``serverAccept(_:)``) and declines the others (a declined offer is not an error: the
/// connection goes on without compression); the client checks the server's answer
/// (``clientAccept(_:)``), which must be within what it offered.
public struct PerMessageDeflate: Sendable, Equatable {
    /// The server empties its compression context after each message.
    public var serverNoContextTakeover = false
    /// The client empties its compression context after each message.
    public var clientNoContextTakeover = false
    /// The largest window (8-15 bits) the server compresses with.
    public var serverMaxWindowBits = 15
    /// The largest window (8-15 bits) the client compresses with.
    public var clientMaxWindowBits = 15

    /// The defaults: both contexts kept, 32 KiB windows.
    public init() {}

    /// The extension's token.
    public static let name = "permessage-deflate"

    /// What a client offers, in preference order: the defaults with its context kept, then the
    /// same without context takeover on its side (for a server that wants that); in both it can
    /// limit its own window if asked.
    public static let clientOffer = "permessage-deflate; client_max_window_bits, permessage-deflate; client_no_context_takeover; client_max_window_bits"

    /// Whether a sender in `role` must empty its context after each message.
    public func noContextTakeover(sentBy role: Role) -> Bool {
        role == .server ? serverNoContextTakeover : clientNoContextTakeover
    }

    /// The window a sender in `role` may use.
    public func maxWindowBits(sentBy role: Role) -> Int {
        role == .server ? serverMaxWindowBits : clientMaxWindowBits
    }

    /// The side of the connection that sends.
    public enum Role: Sendable, Equatable {
        case client
        case server
    }

    /// The `Sec-WebSocket-Extensions` value a server answers with for this agreement.
    public var responseHeader: String {
        var parts = [Self.name]
        if serverNoContextTakeover { parts.append("server_no_context_takeover") }
        if clientNoContextTakeover { parts.append("client_no_context_takeover") }
        if serverMaxWindowBits != 15 { parts.append("server_max_window_bits=\(serverMaxWindowBits)") }
        if clientMaxWindowBits != 15 { parts.append("client_max_window_bits=\(clientMaxWindowBits)") }
        return parts.joined(separator: "; ")
    }

    /// `permessage-deflate (server: no context takeover, window 10 bits)`, for logs and views.
    public var summary: String {
        func side(_ name: String, _ reset: Bool, _ bits: Int) -> String? {
            var notes: [String] = []
            if reset { notes.append("no context takeover") }
            if bits != 15 { notes.append("window \(bits) bits") }
            return notes.isEmpty ? nil : "\(name): " + notes.joined(separator: ", ")
        }
        let notes = [side("server", serverNoContextTakeover, serverMaxWindowBits), side("client", clientNoContextTakeover, clientMaxWindowBits)].compactMap { $0 }
        return notes.isEmpty ? Self.name : "\(Self.name) (\(notes.joined(separator: "; ")))"
    }

    // MARK: Negotiation

    /// The server's choice among the client's offers (the values of its
    /// `Sec-WebSocket-Extensions` headers): the first permessage-deflate offer whose parameters
    /// are all known, unrepeated and valid, with what it asked for granted; nil when none is
    /// (the extension is declined, the handshake goes on).
    ///
    /// The server keeps its inflater's window at 15 bits, so a client's own window limit needs
    /// no answer; `client_max_window_bits` is only echoed when the client gave it a value.
    public static func serverAccept(_ headerValues: [String]) -> PerMessageDeflate? {
        guard let extensions = ExtensionHeader.parse(headerValues) else { return nil }
        offers: for offer in extensions where offer.name.lowercased() == name {
            var agreed = PerMessageDeflate()
            var seen: Set<String> = []
            for (key, value) in offer.parameters {
                let key = key.lowercased()
                guard seen.insert(key).inserted else { continue offers }
                switch key {
                case "server_no_context_takeover":
                    guard value == nil else { continue offers }
                    agreed.serverNoContextTakeover = true
                case "client_no_context_takeover":
                    guard value == nil else { continue offers }
                    agreed.clientNoContextTakeover = true
                case "server_max_window_bits":
                    guard let bits = windowBits(value) else { continue offers }
                    agreed.serverMaxWindowBits = bits
                case "client_max_window_bits":
                    if let value {
                        guard let bits = windowBits(value) else { continue offers }
                        agreed.clientMaxWindowBits = bits
                    }
                default:
                    continue offers
                }
            }
            return agreed
        }
        return nil
    }

    /// The client's reading of the server's answer to ``clientOffer``: nil when the server
    /// declined (no permessage-deflate in its headers); a ``NegotiationError`` when the answer
    /// is not one the offer allows (the client must then fail the connection, RFC 7692 §5).
    public static func clientAccept(_ headerValues: [String]) throws(NegotiationError) -> PerMessageDeflate? {
        guard !headerValues.isEmpty else { return nil }
        guard let extensions = ExtensionHeader.parse(headerValues) else {
            throw NegotiationError(reason: "the server's Sec-WebSocket-Extensions cannot be parsed")
        }
        guard extensions.count == 1, let chosen = extensions.first, chosen.name.lowercased() == name else {
            let names = extensions.map(\.name).joined(separator: ", ")
            throw NegotiationError(reason: "the server chose extensions that were not offered (\(names))")
        }
        var agreed = PerMessageDeflate()
        var seen: Set<String> = []
        for (key, value) in chosen.parameters {
            let key = key.lowercased()
            guard seen.insert(key).inserted else {
                throw NegotiationError(reason: "the server repeated the permessage-deflate parameter \(key)")
            }
            switch key {
            case "server_no_context_takeover", "client_no_context_takeover":
                guard value == nil else {
                    throw NegotiationError(reason: "the permessage-deflate parameter \(key) takes no value")
                }
                if key == "server_no_context_takeover" { agreed.serverNoContextTakeover = true } else { agreed.clientNoContextTakeover = true }
            case "server_max_window_bits", "client_max_window_bits":
                guard let bits = windowBits(value) else {
                    throw NegotiationError(reason: "the permessage-deflate parameter \(key) needs a window of 8 to 15 bits")
                }
                if key == "server_max_window_bits" { agreed.serverMaxWindowBits = bits } else { agreed.clientMaxWindowBits = bits }
            default:
                throw NegotiationError(reason: "the server answered with an unknown permessage-deflate parameter \(key)")
            }
        }
        return agreed
    }

    /// A window size value: 8 to 15, decimal digits only (a quoted value is unquoted already).
    private static func windowBits(_ value: String?) -> Int? {
        guard let value, (1...2).contains(value.count), value.allSatisfy({ $0.isASCII && $0.isNumber }),
              let bits = Int(value), (8...15).contains(bits), !value.hasPrefix("0")
        else { return nil }
        return bits
    }
}

/// A handshake answer that permessage-deflate does not allow, in words.
public struct NegotiationError: Error, Sendable, Equatable {
    /// What is wrong with the answer.
    public var reason: String
}
