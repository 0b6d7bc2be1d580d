import ProxyProtocol
import WebSocketDeflate

/// The protocol views of one TCP connection: which protocol each of its two directions speaks
/// and the decoder that follows it, fed each direction's bytes in order. Shared by the packet
/// views (``ApplicationViewTracker``, which keeps the order by sequence number) and `--follow`
/// (which reassembles first).
///
/// A direction is recognised by its first bytes: a TLS record header; the HTTP/2 connection
/// preface (the other direction then is the server's), or a server's first SETTINGS frame when
/// the server speaks first (the other direction then starts with the preface); a `GET` with `Upgrade: websocket` (or
/// `h2c`), whose answer on the other side — when it is `101` — switches both directions to
/// WebSocket (or HTTP/2) right after its blank line; else, with the HTTP/1.1 view, a request or
/// status line (``HTTPStreamDecoder/looksLikeMessage(_:)``) makes both directions HTTP/1.1, the
/// requests telling the other direction which responses answer a HEAD. A connection the capture joined late
/// (``joinedLate``: its handshake was not seen) also takes a direction that starts with whole,
/// plausible HTTP/2 frames (``HTTP2StreamDecoder/looksLikeFrames(_:)``) as HTTP/2, its HPACK
/// table unknown. Anything else is not viewed.
///
/// A SETTINGS_HEADER_TABLE_SIZE one HTTP/2 direction sends is the largest table the other
/// direction's header blocks may use.
///
/// With a key log (`keys`), a TLS connection is also decrypted (``TLSConnectionDecryptor``):
/// after each record's item come the items of its plaintext — HTTP/2 or WebSocket frames, else
/// ``ViewItem/tlsDecrypted(length:bytes:)`` — or, once, why it is not decrypted.
package struct ConnectionViews {
    package let views: ProtocolViews
    /// WebSocket payload bytes kept per frame.
    package let payloadLimit: Int
    private let keys: TLSKeyStore?
    private var decryption: DecryptedViews?

    enum Decoder {
        case undecided
        case tls(TLSStreamDecoder)
        case webSocket(WebSocketStreamDecoder)
        case http2(HTTP2StreamDecoder)
        case http(HTTPStreamDecoder)
        /// Asked to upgrade; waiting for the answer on the other side.
        case upgradeRequested
        /// The other side asked to upgrade: these bytes start the answer.
        case upgradeAnswerDue(h2c: Bool)
        /// Nothing these views decode.
        case ignored
        /// The start of a PROXY protocol header, held until it is whole (at most
        /// ``ProxyProtocolHeader/longestHeader`` bytes); the direction is decided after it.
        case proxyHeader([UInt8])
    }

    private var sides: [Decoder] = [.undecided, .undecided]
    /// The connection's start was not captured: a direction may begin mid-protocol.
    package var joinedLate = false

    package init(views: ProtocolViews, payloadLimit: Int, keys: TLSKeyStore? = nil) {
        self.views = views
        self.payloadLimit = payloadLimit
        self.keys = keys
    }

    /// The side's bytes are shown as items (a protocol was recognised and its decoder has not
    /// lost its place), not as raw bytes.
    package func isViewed(_ side: Int) -> Bool {
        switch sides[side & 1] {
        case .tls(let tls): !tls.isLost
        case .webSocket(let ws): !ws.isLost
        case .http2(let h2): !h2.isLost
        case .http(let http): !http.isLost && !http.switched
        case .upgradeRequested, .upgradeAnswerDue, .proxyHeader: true
        case .undecided, .ignored: false
        }
    }

    /// The next in-order bytes of one side (0 or 1). Returns how many leading bytes were an HTTP
    /// upgrade request or answer head (the follower shows those as text before the items).
    @discardableResult
    package mutating func consume(_ bytes: UnsafeRawBufferPointer, side: Int, emit: (ViewItem) -> Void) -> Int {
        let side = side & 1
        if views.contains(.proxy), case .undecided = sides[side], ProxyProtocolHeader.starts(bytes) { sides[side] = .proxyHeader([]) }
        if case .proxyHeader(let held) = sides[side] { return consumeProxyHeader(held, bytes, side: side, emit: emit) }
        var rest = bytes
        var head = 0
        if case .undecided = sides[side] { head = decide(side, &rest, emit) }
        if case .upgradeAnswerDue(let h2c) = sides[side] { head = answer(side, h2c: h2c, &rest, emit) }
        switch sides[side] {
        case .tls(var tls):
            if views.contains(.tls) { tls.consume(rest, emit: emit) }
            sides[side] = .tls(tls)
            if let keys, decryption != nil || keys.isActive {
                if decryption == nil { decryption = DecryptedViews(keys: keys, views: views, payloadLimit: payloadLimit) }
                decryption?.consume(rest, side: side, emit: emit)
            }
        case .webSocket(var ws):
            ws.consume(rest, emit: emit)
            sides[side] = .webSocket(ws)
        case .http2(var h2):
            var tableSize: UInt32?
            h2.consume(rest) { item in
                if case .http2Frame(let frame) = item, frame.type == 4, frame.flags & 1 == 0,
                   let setting = frame.settings.last(where: { $0.identifier == 1 }) {
                    tableSize = setting.value
                }
                emit(item)
            }
            sides[side] = .http2(h2)
            if let tableSize, case .http2(var other) = sides[1 - side] {
                other.allowHeaderTable(of: tableSize)
                sides[1 - side] = .http2(other)
            }
        case .http(var http):
            var heads: [Bool] = []
            http.consume(rest, emit: emit) { heads.append($0) }
            sides[side] = .http(http)
            if case .http(var other) = sides[1 - side], !heads.isEmpty {
                for toHEAD in heads { other.expectResponse(toHEAD: toHEAD) }
                sides[1 - side] = .http(other)
            }
        default:
            break
        }
        return head
    }

    /// More of a PROXY protocol header (`held`: what came before): once whole it is shown and
    /// the bytes behind it are consumed as the direction's first; a malformed one is shown and
    /// the direction not viewed. Returns the HTTP head's length among `bytes`, as ``consume(_:side:emit:)``.
    private mutating func consumeProxyHeader(_ held: [UInt8], _ bytes: UnsafeRawBufferPointer, side: Int, emit: (ViewItem) -> Void) -> Int {
        var all = held
        all.append(contentsOf: bytes.prefix(ProxyProtocolHeader.longestHeader - held.count))
        let result = all.withUnsafeBytes { raw in
            Result { () throws(ProxyProtocolHeader.Failure) in try ProxyProtocolHeader.parse(raw) }
        }
        let parsed: ProxyProtocolHeader.Parsed
        switch result {
        case .success(let value):
            parsed = value
        case .failure(let failure):
            emit(.proxyHeaderMalformed(failure))
            sides[side] = .ignored
            return 0
        }
        guard case .header(let header, let length) = parsed else {
            sides[side] = .proxyHeader(all)
            return 0
        }
        emit(.proxyHeader(header))
        sides[side] = .undecided
        // The header's bytes among these; the rest is the direction's own beginning.
        let taken = length - held.count
        guard taken < bytes.count else { return 0 }
        let head = consume(UnsafeRawBufferPointer(rebasing: bytes[taken...]), side: side, emit: emit)
        return head > 0 ? taken + head : 0
    }

    /// Bytes of one side are missing (not captured, or not in order). TLS starts again when
    /// `next` — the bytes after the gap — begins with a record header; the others stop.
    package mutating func gap(side: Int, next: UnsafeRawBufferPointer, emit: (ViewItem) -> Void) {
        let side = side & 1
        switch sides[side] {
        case .tls(var tls):
            if TLSStreamDecoder.looksLikeRecord(next) { tls.realign() } else { tls.lose(emit) }
            sides[side] = .tls(tls)
            decryption?.gap(side: side, emit: emit)
        case .webSocket(var ws):
            ws.lose(emit)
            sides[side] = .webSocket(ws)
        case .http2(var h2):
            h2.lose(emit)
            sides[side] = .http2(h2)
        case .http(var http):
            http.lose(emit)
            sides[side] = .http(http)
        case .undecided:
            break
        default:
            sides[side] = .ignored
        }
    }

    /// One side ended (its FIN): an HTTP/1.1 response whose body runs until close ends here.
    package mutating func end(side: Int, emit: (ViewItem) -> Void) {
        let side = side & 1
        switch sides[side] {
        case .http(var http):
            http.end(emit: emit)
            sides[side] = .http(http)
        case .tls:
            decryption?.end(side: side, emit: emit)
        default:
            break
        }
    }

    /// The first bytes of a side: which protocol it speaks. Returns the HTTP head's length.
    private mutating func decide(_ side: Int, _ bytes: inout UnsafeRawBufferPointer, _ emit: (ViewItem) -> Void) -> Int {
        guard !bytes.isEmpty else { return 0 }
        let preface = HTTP2StreamDecoder.preface
        if (views.contains(.tls) || keys?.isActive == true) && TLSStreamDecoder.looksLikeRecord(bytes) {
            sides[side] = .tls(TLSStreamDecoder())
        } else if views.contains(.http2) && bytes.count >= 16 && bytes.starts(with: preface.prefix(min(bytes.count, preface.count))) {
            sides[side] = .http2(HTTP2StreamDecoder(client: true))
            sides[1 - side] = .http2(HTTP2StreamDecoder(client: false))
        } else if views.contains(.http2) && HTTP2StreamDecoder.looksLikeServerSettings(bytes) {
            // A server that speaks first (before the client's preface arrives).
            sides[side] = .http2(HTTP2StreamDecoder(client: false))
            sides[1 - side] = .http2(HTTP2StreamDecoder(client: true))
        } else if views.contains(.http2) && joinedLate && HTTP2StreamDecoder.looksLikeFrames(bytes) {
            // Joined mid-connection: this direction alone; the other decides on its own bytes.
            sides[side] = .http2(HTTP2StreamDecoder(client: false, tableUnknown: true))
        } else if !views.isDisjoint(with: [.webSocket, .http2]), let head = HTTPUpgradeHead(bytes), head.status == nil,
                  (views.contains(.webSocket) && head.upgrades(to: "websocket")) || (views.contains(.http2) && head.upgrades(to: "h2c")) {
            let h2c = !head.upgrades(to: "websocket")
            if !h2c { emit(.webSocketUpgrade(.request(target: head.target))) }
            sides[side] = .upgradeRequested
            sides[1 - side] = .upgradeAnswerDue(h2c: h2c)
            let length = head.end ?? bytes.count
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return length
        } else if views.contains(.http) && HTTPStreamDecoder.looksLikeMessage(bytes) {
            sides[side] = .http(HTTPStreamDecoder())
            if case .undecided = sides[1 - side] { sides[1 - side] = .http(HTTPStreamDecoder()) }
        } else {
            sides[side] = .ignored
        }
        return 0
    }

    /// The answer to an upgrade request: on 101 both sides switch after its head.
    private mutating func answer(_ side: Int, h2c: Bool, _ bytes: inout UnsafeRawBufferPointer, _ emit: (ViewItem) -> Void) -> Int {
        guard let head = HTTPUpgradeHead(bytes), let status = head.status else {
            sides[side] = .ignored
            sides[1 - side] = .ignored
            return 0
        }
        if !h2c { emit(.webSocketUpgrade(.response(status: status))) }
        guard status == 101, let end = head.end else {
            sides[side] = .ignored
            sides[1 - side] = .ignored
            let length = head.end ?? bytes.count
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return length
        }
        if h2c {
            sides[side] = .http2(HTTP2StreamDecoder(client: false))
            sides[1 - side] = .http2(HTTP2StreamDecoder(client: true))
        } else {
            // This side is the server's; an answer permessage-deflate does not allow is read as
            // no agreement (its compressed messages are then said not to be inflated).
            let agreed = (try? PerMessageDeflate.clientAccept(head.extensions)) ?? nil
            let server: WebSocketStreamDecoder.Inflation = agreed.map { .agreed($0, sender: .server) } ?? .none
            let client: WebSocketStreamDecoder.Inflation = agreed.map { .agreed($0, sender: .client) } ?? .none
            sides[side] = .webSocket(WebSocketStreamDecoder(payloadLimit: payloadLimit, inflation: server))
            sides[1 - side] = .webSocket(WebSocketStreamDecoder(payloadLimit: payloadLimit, inflation: client))
        }
        bytes = UnsafeRawBufferPointer(rebasing: bytes[end...])
        return end
    }
}
