/// `capture --decode`: the protocol views' lines after tcpdump's header line (and before the
/// dump), each indented four spaces as tcpdump indents its continuation lines. Without
/// `--decode` nothing here runs and the output is tcpdump's.
extension PacketPrinter {
    /// Lines shown per packet at most; a segment with more items ends with `... N more`.
    static let maximumViewLines = 128

    mutating func appendViews(_ header: PacketHeader, _ captured: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        guard var tracker = viewTracker, let segment = TransportSegment.parse(header, captured) else { return }
        let items = tracker.items(for: segment, payload: segment.payload(in: captured))
        viewTracker = tracker
        for (index, item) in items.enumerated() {
            out.append("\n    ")
            if index == Self.maximumViewLines {
                out.append("... ")
                out.appendDecimal(items.count - index)
                out.append(" more")
                return
            }
            item.appendText(into: &out)
        }
    }
}
