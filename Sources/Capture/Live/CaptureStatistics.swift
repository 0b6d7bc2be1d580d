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
}
