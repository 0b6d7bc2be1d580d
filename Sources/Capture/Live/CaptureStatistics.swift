/// libpcap's counters for a live capture (`pcap_stats`), as tcpdump prints them at the end.
///
/// On Linux `received` counts packets that passed the filter ("received by filter") and
/// `droppedByKernel` those lost because the ring buffer was full.
public struct CaptureStatistics: Sendable, Equatable {
    /// `ps_recv`: packets received (on Linux, those that passed the filter).
    public var received: UInt32
    /// `ps_drop`: packets lost because the buffer was full.
    public var droppedByKernel: UInt32
    /// `ps_ifdrop`: packets the interface dropped; printed only when not 0.
    public var droppedByInterface: UInt32

    /// Counters as given (``LiveCapture`` fills them from `pcap_stats`).
    public init(received: UInt32, droppedByKernel: UInt32, droppedByInterface: UInt32) {
        self.received = received
        self.droppedByKernel = droppedByKernel
        self.droppedByInterface = droppedByInterface
    }

    /// tcpdump's closing lines: `N packets captured`, then, when the kernel's counters are
    /// known, `received by filter`, `dropped by kernel` and (when not zero) `dropped by interface`.
    public static func tcpdumpLines(captured: Int, _ statistics: CaptureStatistics?) -> String {
        func count(_ value: some BinaryInteger, _ what: String) -> String {
            "\(value) packet\(value == 1 ? "" : "s") \(what)\n"
        }
        var lines = count(captured, "captured")
        if let statistics {
            lines += count(statistics.received, "received by filter")
            lines += count(statistics.droppedByKernel, "dropped by kernel")
            if statistics.droppedByInterface != 0 { lines += count(statistics.droppedByInterface, "dropped by interface") }
        }
        return lines
    }
}
