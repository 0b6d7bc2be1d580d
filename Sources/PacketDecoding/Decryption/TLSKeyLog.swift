/// The secrets of an NSS key log (the format curl's and browsers' `SSLKEYLOGFILE`, openssl's
/// `-keylogfile` and Wireshark use): one line per secret, `LABEL <client random, 64 hex>
/// <secret hex>`, `#` comments and blank lines ignored. The client random — from the
/// connection's ClientHello — ties a connection to its lines.
///
/// Labels kept: `CLIENT_RANDOM` (the TLS 1.2 master secret, 48 bytes),
/// `CLIENT_HANDSHAKE_TRAFFIC_SECRET`, `SERVER_HANDSHAKE_TRAFFIC_SECRET`,
/// `CLIENT_TRAFFIC_SECRET_0`, `SERVER_TRAFFIC_SECRET_0` (TLS 1.3); other labels
/// (`EXPORTER_SECRET`, `CLIENT_EARLY_TRAFFIC_SECRET`, …) are valid lines with nothing to keep.
///
/// Text is added as it arrives (``add(_:)``): whole lines are read, a partial last line is
/// kept until the rest comes (or ``finish()``). A malformed line is counted
/// (``malformedLines``), never fatal. Bounded: at most ``maximumConnections`` client randoms
/// (later ones are counted in ``droppedLines``), a line longer than ``maximumLineLength`` is
/// malformed and not kept.
package struct TLSKeyLog: Sendable {
    /// The secrets of one connection, by client random.
    package struct Secrets: Sendable, Equatable {
        /// TLS 1.2 (`CLIENT_RANDOM`): the master secret.
        package var masterSecret: [UInt8]?
        /// TLS 1.3 handshake traffic secrets.
        package var clientHandshake: [UInt8]?
        package var serverHandshake: [UInt8]?
        /// TLS 1.3 first application traffic secrets.
        package var clientTraffic: [UInt8]?
        package var serverTraffic: [UInt8]?

        package init() {}
    }

    /// The most client randoms kept.
    package static let maximumConnections = 1 << 18
    /// The longest line read: a label, 64 hex, a 64-byte secret in hex, with room to spare.
    package static let maximumLineLength = 1_024

    private var secrets: [[UInt8]: Secrets] = [:]
    private var partial: [UInt8] = []
    /// The partial line grew past the limit: the rest of it is dropped.
    private var skippingLine = false
    /// Lines that are neither a secret, a comment nor blank (bad hex, wrong lengths, too long).
    package private(set) var malformedLines = 0
    /// Secret lines read (of any label).
    package private(set) var secretLines = 0
    /// Valid lines not kept because ``maximumConnections`` client randoms were already known.
    package private(set) var droppedLines = 0

    package init() {}

    /// The client randoms with at least one secret.
    package var count: Int { secrets.count }

    /// The secrets logged for this client random (32 bytes), nil when none.
    package func secrets(for clientRandom: some Collection<UInt8>) -> Secrets? {
        secrets[Array(clientRandom)]
    }

    /// Reads the whole lines in `text`, after what is kept from the last call.
    package mutating func add(_ text: some Collection<UInt8>) {
        for byte in text {
            if byte == 0x0A {
                if skippingLine {
                    skippingLine = false
                } else {
                    readLine()
                }
                partial.removeAll(keepingCapacity: true)
            } else if !skippingLine {
                if partial.count >= Self.maximumLineLength {
                    malformedLines += 1
                    skippingLine = true
                    partial.removeAll()
                } else {
                    partial.append(byte)
                }
            }
        }
    }

    /// The input has ended: a partial last line is read as a line.
    package mutating func finish() {
        if !skippingLine && !partial.isEmpty { readLine() }
        partial.removeAll()
        skippingLine = false
    }

    private mutating func readLine() {
        var line = partial[...]
        while let last = line.last, last == 0x0D || last == 0x20 || last == 0x09 { line.removeLast() }
        while let first = line.first, first == 0x20 || first == 0x09 { line.removeFirst() }
        if line.isEmpty || line.first == 0x23 { return }
        let fields = line.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 })
        guard fields.count == 3, let random = Self.hex(fields[1]), random.count == 32,
              let secret = Self.hex(fields[2]), !secret.isEmpty, secret.count <= 64 else {
            malformedLines += 1
            return
        }
        let label = String(decoding: fields[0], as: UTF8.self)
        var entry = secrets[random] ?? Secrets()
        switch label {
        case "CLIENT_RANDOM":
            guard secret.count == 48 else {
                malformedLines += 1
                return
            }
            entry.masterSecret = secret
        case "CLIENT_HANDSHAKE_TRAFFIC_SECRET": entry.clientHandshake = secret
        case "SERVER_HANDSHAKE_TRAFFIC_SECRET": entry.serverHandshake = secret
        case "CLIENT_TRAFFIC_SECRET_0": entry.clientTraffic = secret
        case "SERVER_TRAFFIC_SECRET_0": entry.serverTraffic = secret
        default:
            guard label.utf8.allSatisfy({ (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F }) else {
                malformedLines += 1
                return
            }
            secretLines += 1
            return
        }
        secretLines += 1
        if secrets[random] == nil && secrets.count >= Self.maximumConnections {
            droppedLines += 1
            return
        }
        secrets[random] = entry
    }

    /// Hex digits (either case) as bytes; nil for an odd count or another character.
    static func hex(_ text: some Collection<UInt8>) -> [UInt8]? {
        guard text.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count / 2)
        var high: UInt8?
        for character in text {
            let value: UInt8
            switch character {
            case 0x30...0x39: value = character - 0x30
            case 0x61...0x66: value = character - 0x61 + 10
            case 0x41...0x46: value = character - 0x41 + 10
            default: return nil
            }
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return bytes
    }
}
