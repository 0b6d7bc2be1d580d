/// `--keylog` in the packet views: the decryptor of one TLS connection and the views of its
/// decrypted bytes (HTTP/2, WebSocket and HTTP/1.1 inside TLS). A class so that ``ConnectionViews`` can
/// hold the views of the inner stream; each belongs to one connection.
final class DecryptedViews {
    var decryptor: TLSConnectionDecryptor
    var inner: ConnectionViews

    init(keys: TLSKeyStore, views: ProtocolViews, payloadLimit: Int) {
        decryptor = TLSConnectionDecryptor(keys: keys)
        inner = ConnectionViews(views: views.intersection([.webSocket, .http2, .http]), payloadLimit: payloadLimit)
    }

    /// The TLS bytes of one side: the items of what they decrypt to — the inner views' items,
    /// or the decrypted data itself when no inner view takes it — and the failure, once.
    func consume(_ bytes: UnsafeRawBufferPointer, side: Int, emit: (ViewItem) -> Void) {
        decryptor.consume(bytes, side: side) { output in
            switch output {
            case .data(let side, let plaintext):
                let wasViewed = inner.isViewed(side)
                var items: [ViewItem] = []
                plaintext.withUnsafeBytes { _ = inner.consume($0, side: side) { items.append($0) } }
                if wasViewed || inner.isViewed(side) {
                    items.forEach(emit)
                } else {
                    emit(.tlsDecrypted(length: plaintext.count, bytes: Array(plaintext.prefix(inner.payloadLimit))))
                }
            case .failure(let failure):
                emit(.tlsNotDecrypted(failure))
            }
        }
    }

    /// The side's TLS stream ended: so does its plaintext (an HTTP/1.1 body until close).
    func end(side: Int, emit: (ViewItem) -> Void) {
        inner.end(side: side, emit: emit)
    }

    func gap(side: Int, emit: (ViewItem) -> Void) {
        decryptor.gap(side: side) { output in
            if case .failure(let failure) = output { emit(.tlsNotDecrypted(failure)) }
        }
    }
}
