/// `capture --json`: ``PacketJSON``'s object for every packet, and for a TCP segment in which
/// TLS records, WebSocket frames or HTTP/2 frames start, an `"app"` array after the other keys
/// with one object for each (see ``ViewItem``'s `appendJSON`):
///
/// ```
/// {"time":…,"proto":"tcp",…,"payload":"FgMBAgAB…","app":[{"proto":"tls","type":"handshake",
///  "version":"TLSv1.0","length":512,"messages":["ClientHello"],"sni":"example.com"}]}
/// ```
///
/// The views keep per-connection state (``ApplicationViewTracker``), so one writer must see a
/// capture's packets in order.
public struct PacketJSONWriter {
    private var tracker = ApplicationViewTracker(views: .all)

    /// A writer with no connection seen yet.
    public init() {}

    /// A writer whose views also decrypt TLS connections with a key log (`--keylog`).
    package init(keys: TLSKeyStore?) {
        tracker = ApplicationViewTracker(views: .all, keys: keys)
    }

    /// Appends the object for one packet and a newline.
    public mutating func append(_ header: PacketHeader, _ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        if let segment = PacketJSON.appendFields(header, bytes, into: &out) {
            let captured = UnsafeRawBufferPointer(rebasing: bytes[0..<max(0, min(bytes.count, header.capturedLength))])
            let items = tracker.items(for: segment, payload: segment.payload(in: captured))
            if !items.isEmpty {
                out.append(",\"app\":[")
                for (index, item) in items.enumerated() {
                    if index > 0 { out.append(",") }
                    item.appendJSON(into: &out)
                }
                out.append("]")
            }
        }
        out.append("}\n")
    }
}
