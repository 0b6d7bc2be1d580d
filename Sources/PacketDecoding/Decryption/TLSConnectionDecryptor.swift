/// Decrypts one TLS connection with a key log: fed each direction's bytes in order (segments
/// or a reassembled stream, any chunk size), it cuts records, reads the client random, server
/// random, version and cipher suite from the plaintext hellos, makes each direction's record
/// keys from the key log's secrets (``TLSKeySchedule``), and hands out the decrypted
/// application data of each direction (``Output/data(side:bytes:)``).
///
/// TLS 1.3: records of type 23 after the ServerHello are encrypted, first with the handshake
/// traffic secrets, then — after that direction's Finished, read from the decrypted handshake —
/// with the application traffic secrets; KeyUpdate moves to the next secret. TLS 1.2: the records
/// after a direction's change_cipher_spec are encrypted with the key block from the master
/// secret. Which side is the client is learnt from who sends the ClientHello.
///
/// A connection that cannot be decrypted says why once (``Output/failure(_:)``) and then passes
/// its bytes over: no ClientHello (a capture that starts mid-connection), no key, an unsupported
/// suite, a record that fails authentication (a wrong key), missing bytes. With a live key log
/// (``TLSKeyStore/isLive``) records wait for their keys, up to ``maximumPendingBytes`` per
/// connection. Bounded: a partial record (at most ``maximumRecordLength`` bytes) and the
/// plaintext hellos (``maximumHandshakeBytes``) per direction.
package struct TLSConnectionDecryptor {
    package enum Output: Equatable, Sendable {
        /// Decrypted application data of side 0 or 1.
        case data(side: Int, bytes: [UInt8])
        /// The connection is not (or no longer) decrypted, and why.
        case failure(TLSDecryptionFailure)
    }

    /// 2^14 bytes of plaintext plus the 2048 bytes of expansion TLS 1.2 allows, and the header.
    package static let maximumRecordLength = 5 + 16_384 + 2_048
    package static let maximumHandshakeBytes = 64 << 10
    package static let maximumPendingBytes = 1 << 20

    private enum Phase { case handshake, application }

    private struct Direction {
        /// The record not yet whole (header, then body).
        var record: [UInt8] = []
        /// Plaintext handshake bytes not yet whole messages (until both hellos are read).
        var handshake: [UInt8] = []
        /// TLS 1.2: a change_cipher_spec went by; the records after it are encrypted.
        var changedCipher = false
        var cipher: TLSRecordCipher?
        /// TLS 1.3: which traffic secret the next cipher comes from.
        var phase = Phase.handshake
        /// TLS 1.3: the decrypted handshake message being passed over.
        var messageHeader: [UInt8] = []
        var messageType: UInt8 = 0
        var messageRemaining = 0
        /// Records waiting for keys (a live key log).
        var pending: [[UInt8]] = []
        var stopped = false
    }

    private let keys: TLSKeyStore
    private var directions = [Direction(), Direction()]
    private var clientSide: Int?
    private var clientRandom: [UInt8]?
    private var serverRandom: [UInt8]?
    /// nil until the ServerHello: true for TLS 1.3.
    private var isTLS13: Bool?
    private var suiteNumber: UInt16 = 0
    private var suite: TLSCipherSuite?
    private var pendingBytes = 0
    /// The failure was said.
    package private(set) var hasFailed = false
    /// Records decrypted (both directions).
    package private(set) var decryptedRecords = 0

    package init(keys: TLSKeyStore) {
        self.keys = keys
    }

    /// The next in-order bytes of side 0 or 1.
    package mutating func consume(_ bytes: UnsafeRawBufferPointer, side: Int, emit: (Output) -> Void) {
        let side = side & 1
        var index = 0
        while index < bytes.count && !directions[side].stopped {
            if directions[side].record.isEmpty, bytes.count - index >= 5 {
                // A whole record in the chunk is read in place.
                let length = Int(bytes[index + 3]) << 8 | Int(bytes[index + 4])
                guard Self.isRecordHeader(bytes[index], bytes[index + 1], length) else {
                    lose(side, emit)
                    return
                }
                if bytes.count - index >= 5 + length {
                    process(UnsafeRawBufferPointer(rebasing: bytes[index..<(index + 5 + length)]), side: side, emit: emit)
                    index += 5 + length
                    continue
                }
            }
            if directions[side].record.count < 5 {
                let count = min(5 - directions[side].record.count, bytes.count - index)
                directions[side].record.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + count)]))
                index += count
                guard directions[side].record.count == 5 else { return }
                let header = directions[side].record
                guard Self.isRecordHeader(header[0], header[1], Int(header[3]) << 8 | Int(header[4])) else {
                    lose(side, emit)
                    return
                }
            }
            let header = directions[side].record
            let total = 5 + (Int(header[3]) << 8 | Int(header[4]))
            let count = min(total - directions[side].record.count, bytes.count - index)
            directions[side].record.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + count)]))
            index += count
            if directions[side].record.count == total {
                let record = directions[side].record
                directions[side].record.removeAll(keepingCapacity: true)
                record.withUnsafeBytes { process($0, side: side, emit: emit) }
            }
        }
    }

    /// Bytes of side 0 or 1 are missing: its records can no longer be followed.
    package mutating func gap(side: Int, emit: (Output) -> Void) {
        lose(side & 1, emit)
    }

    private static func isRecordHeader(_ type: UInt8, _ major: UInt8, _ length: Int) -> Bool {
        (20...24).contains(type) && major == 3 && length > 0 && length <= maximumRecordLength - 5
    }

    /// A direction stops; said when decryption had begun for the connection.
    private mutating func lose(_ side: Int, _ emit: (Output) -> Void) {
        directions[side].stopped = true
        directions[side].record = []
        directions[side].pending = []
        if isTLS13 != nil || directions[side].changedCipher { fail(.lostRecords, emit) }
    }

    private mutating func fail(_ failure: TLSDecryptionFailure, _ emit: (Output) -> Void) {
        for side in 0..<2 {
            directions[side].stopped = true
            directions[side].pending = []
            directions[side].record = []
        }
        pendingBytes = 0
        guard !hasFailed else { return }
        hasFailed = true
        emit(.failure(failure))
    }

    // MARK: Records

    private mutating func process(_ record: UnsafeRawBufferPointer, side: Int, emit: (Output) -> Void) {
        let type = record[0]
        if type == 20 {
            if isTLS13 == false {
                directions[side].changedCipher = true
                directions[side].cipher = nil
            }
            return
        }
        let encrypted = isTLS13 == false ? directions[side].changedCipher : type == 23
        guard encrypted else {
            if type == 22 && (clientRandom == nil || serverRandom == nil) {
                readHandshake(UnsafeRawBufferPointer(rebasing: record[5...]), side: side, emit: emit)
            }
            return
        }
        if pendingBytes > 0 { drainPending(emit) }
        if directions[side].pending.isEmpty, decrypt(record, side: side, emit: emit) { return }
        guard !directions[side].stopped else { return }
        pendingBytes += record.count
        if pendingBytes > Self.maximumPendingBytes {
            fail(clientRandom == nil ? .handshakeNotSeen : .noKey, emit)
            return
        }
        directions[side].pending.append(Array(record))
    }

    /// Records that waited for keys, in order, until one still has to wait.
    private mutating func drainPending(_ emit: (Output) -> Void) {
        for side in 0..<2 {
            while let first = directions[side].pending.first {
                let done = first.withUnsafeBytes { decrypt($0, side: side, emit: emit) }
                guard done else { break }
                guard !directions[side].pending.isEmpty else { break }  // failed: emptied
                directions[side].pending.removeFirst()
                pendingBytes -= first.count
            }
        }
    }

    /// Decrypts one encrypted record; false when it must wait for keys.
    private mutating func decrypt(_ record: UnsafeRawBufferPointer, side: Int, emit: (Output) -> Void) -> Bool {
        guard !directions[side].stopped else { return true }
        guard let isTLS13 else {
            if clientRandom == nil {
                fail(.handshakeNotSeen, emit)
                return true
            }
            return false  // the ServerHello is still to come
        }
        if directions[side].cipher == nil {
            switch makeCipher(side: side, tls13: isTLS13) {
            case .ready(let cipher): directions[side].cipher = cipher
            case .wait: return false
            case .failed(let failure):
                fail(failure, emit)
                return true
            }
        }
        guard let opened = directions[side].cipher?.open(record) else {
            fail(.authenticationFailed, emit)
            return true
        }
        decryptedRecords += 1
        switch opened.type {
        case 23:
            if !opened.plaintext.isEmpty { emit(.data(side: side, bytes: opened.plaintext)) }
        case 22 where isTLS13:
            followHandshake(opened.plaintext, side: side)
        default:
            break
        }
        return true
    }

    private enum CipherResult {
        case ready(TLSRecordCipher)
        case wait
        case failed(TLSDecryptionFailure)
    }

    private func makeCipher(side: Int, tls13: Bool) -> CipherResult {
        guard let clientSide, let clientRandom else { return .failed(.handshakeNotSeen) }
        guard let suite, let serverRandom else { return .failed(.unsupportedSuite(suiteNumber)) }
        let missing: CipherResult = keys.isLive ? .wait : .failed(.noKey)
        guard let secrets = keys.secrets(for: clientRandom) else { return missing }
        let isClient = side == clientSide
        if tls13 {
            let secret: [UInt8]?
            switch directions[side].phase {
            case .handshake: secret = isClient ? secrets.clientHandshake : secrets.serverHandshake
            case .application: secret = isClient ? secrets.clientTraffic : secrets.serverTraffic
            }
            guard let secret else { return missing }
            return .ready(TLSRecordCipher(tls13Secret: secret, suite: suite))
        }
        guard let master = secrets.masterSecret else { return missing }
        let block = TLSKeySchedule.keyBlock(masterSecret: master, clientRandom: clientRandom, serverRandom: serverRandom, suite: suite)
        return .ready(TLSRecordCipher(suite: suite, key: isClient ? block.clientKey : block.serverKey, iv: isClient ? block.clientIV : block.serverIV))
    }

    /// TLS 1.3: the handshake messages of a decrypted record, passed over; after this
    /// direction's Finished its application secret takes over, after a KeyUpdate the next one.
    private mutating func followHandshake(_ plaintext: [UInt8], side: Int) {
        var change: Phase?
        var update = false
        var index = 0
        while index < plaintext.count {
            if directions[side].messageRemaining > 0 {
                let count = min(directions[side].messageRemaining, plaintext.count - index)
                directions[side].messageRemaining -= count
                index += count
                if directions[side].messageRemaining == 0 { completed(directions[side].messageType) }
                continue
            }
            directions[side].messageHeader.append(plaintext[index])
            index += 1
            if directions[side].messageHeader.count == 4 {
                let header = directions[side].messageHeader
                directions[side].messageHeader.removeAll(keepingCapacity: true)
                directions[side].messageType = header[0]
                directions[side].messageRemaining = Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
                if directions[side].messageRemaining == 0 { completed(header[0]) }
            }
        }
        func completed(_ type: UInt8) {
            if type == 20 && directions[side].phase == .handshake { change = .application }
            if type == 24 && directions[side].phase == .application { update = true }
        }
        if let change {
            directions[side].phase = change
            directions[side].cipher = nil
        } else if update {
            directions[side].cipher = directions[side].cipher?.updated()
        }
    }

    // MARK: Plaintext hellos

    private mutating func readHandshake(_ body: UnsafeRawBufferPointer, side: Int, emit: (Output) -> Void) {
        directions[side].handshake.append(contentsOf: body)
        if directions[side].handshake.count > Self.maximumHandshakeBytes {
            directions[side].handshake = []
            return
        }
        var messages = directions[side].handshake[...]
        while messages.count >= 4 {
            let start = messages.startIndex
            let length = Int(messages[start + 1]) << 16 | Int(messages[start + 2]) << 8 | Int(messages[start + 3])
            guard messages.count - 4 >= length else { break }
            let message = messages[(start + 4)..<(start + 4 + length)]
            switch messages[start] {
            case 1:
                if let random = TLSHelloFields.clientRandom(message) {
                    clientSide = side
                    clientRandom = random
                }
            case 2:
                if let hello = TLSHelloFields.serverHello(message), hello.random != TLSHelloFields.helloRetryRandom {
                    serverRandom = hello.random
                    suiteNumber = hello.suite
                    let tls13 = hello.version == 0x0304
                    isTLS13 = tls13
                    if clientSide == nil { clientSide = 1 - side }
                    suite = TLSCipherSuite(hello.suite).flatMap { $0.isTLS13 == tls13 && (tls13 || hello.version == 0x0303) ? $0 : nil }
                }
            default:
                break
            }
            messages = messages[(start + 4 + length)...]
        }
        directions[side].handshake = Array(messages)
        if pendingBytes > 0 && isTLS13 != nil { drainPending(emit) }
    }
}
