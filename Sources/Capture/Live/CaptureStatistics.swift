/// libpcap's counters for a live capture (`pcap_stats`), as tcpdump prints them at the end.
///
/// On Linux `received` counts packets that passed the filter ("received by filter") and
/// `droppedByKernel` those lost because the ring buffer was full.
public struct CaptureStatistics: Sendable, Equatable {
    public var received: UInt32
    public var droppedByKernel: UInt32
    public var droppedByInterface: UInt32

    public init(received: UInt32, droppedByKernel: UInt32, droppedByInterface: UInt32) {
        self.received = received
        self.droppedByKernel = droppedByKernel
        self.droppedByInterface = droppedByInterface
    }
}
