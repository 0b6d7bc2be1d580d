/// Follows one direction of a TLS connection record by record: every record header becomes a
/// ``ViewItem/tls(_:)``; plaintext handshake records and alerts are held until whole (their first
/// ``maximumHeldBytes`` bytes) so their messages can be read; other record bodies are passed
/// over without being kept.
///
/// Fed the direction's bytes in order, in chunks of any size (segments, or a reassembled
/// stream). Something that is not a TLS record header where one should start ends the
/// decoding: ``isLost`` becomes true and one ``ViewItem/lostSync(_:)`` is emitted.
/// ``realign()`` lets a packet-by-packet caller try again at a segment that starts a record.
package struct TLSStreamDecoder: Sendable {
    /// 2^14 bytes of plaintext plus the 2048 bytes of expansion RFC 8446 §5.2 allows.
    package static let maximumRecordLength = 16_384 + 2_048
    /// The most of one handshake record kept to be read: hellos fit (a ClientHello with a
    /// post-quantum key share is under 2 KiB); a longer record's first messages are read and the
    /// last one is marked as continuing.
    package static let maximumHeldBytes = 8_192

    /// The bytes of a record not yet whole: its header, then (for the records read) its body.
    private var pending: [UInt8] = []
    /// Bytes of the current record's body still to pass over.
    private var skip = 0
    /// A change_cipher_spec went by: later handshake and alert bodies are not readable.
    private(set) var encrypted = false
    /// Not decoding any more (see the type's discussion).
    package private(set) var isLost = false

    package init() {}

    /// A record header could start here: a known content type, version 3.x, a length within
    /// bounds — what a segment must start with for ``realign()`` to take it.
    package static func looksLikeRecord(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 5 else { return false }
        let length = Int(bytes[3]) << 8 | Int(bytes[4])
        return (20...24).contains(bytes[0]) && bytes[1] == 3 && bytes[2] <= 4 && length > 0 && length <= maximumRecordLength
    }

    /// Starts again at a record boundary after a gap.
    package mutating func realign() {
        pending.removeAll(keepingCapacity: true)
        skip = 0
        isLost = false
    }

    /// Gives up on this direction (a gap the caller cannot bridge); emits the note once.
    package mutating func lose(_ emit: (ViewItem) -> Void) {
        guard !isLost else { return }
        isLost = true
        pending.removeAll()
        skip = 0
        emit(.lostSync(.tls))
    }

    package mutating func consume(_ bytes: UnsafeRawBufferPointer, emit: (ViewItem) -> Void) {
        var index = 0
        while index < bytes.count && !isLost {
            if skip > 0 {
                let count = min(skip, bytes.count - index)
                skip -= count
                index += count
                continue
            }
            // The 5-byte header.
            if pending.count < 5 {
                let count = min(5 - pending.count, bytes.count - index)
                pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + count)]))
                index += count
                guard pending.count == 5 else { return }
                let ok = pending.withUnsafeBytes { Self.looksLikeRecord($0) }
                guard ok else {
                    lose(emit)
                    return
                }
                if !holdsBody {
                    emitRecord(body: nil, emit: emit)
                    skip = bodyLength
                    pending.removeAll(keepingCapacity: true)
                }
                continue
            }
            // A body kept until whole (its first maximumHeldBytes; the rest is passed over).
            let held = min(bodyLength, Self.maximumHeldBytes)
            let count = min(5 + held - pending.count, bytes.count - index)
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + count)]))
            index += count
            if pending.count == 5 + held {
                emitRecord(body: Array(pending[5...]), emit: emit)
                skip = bodyLength - held
                pending.removeAll(keepingCapacity: true)
            }
        }
    }

    private var bodyLength: Int { Int(pending[3]) << 8 | Int(pending[4]) }

    /// Plaintext handshake and alert records are read; the rest only counted.
    private var holdsBody: Bool { !encrypted && (pending[0] == 22 || pending[0] == 21) }

    private mutating func emitRecord(body: [UInt8]?, emit: (ViewItem) -> Void) {
        var record = TLSRecordSummary(contentType: pending[0], version: UInt16(pending[1]) << 8 | UInt16(pending[2]), length: bodyLength)
        record.encrypted = encrypted && (record.contentType == 22 || record.contentType == 21)
        if let body {
            if record.contentType == 21 {
                if body.count >= 2 {
                    record.alertLevel = body[0]
                    record.alertDescription = body[1]
                }
            } else {
                body.withUnsafeBytes { TLSHandshakeReader.read($0, into: &record) }
            }
        }
        if record.contentType == 20 { encrypted = true }
        emit(.tls(record))
    }
}
