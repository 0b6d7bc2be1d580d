import CLibpcap
import PacketDecoding

extension LinkType {
    /// The libpcap `DLT_*` value for this `LINKTYPE_*` (they differ only for raw IP here:
    /// LINKTYPE_RAW 101 is DLT_RAW 12 on Linux).
    var dataLinkType: Int32 {
        self == .raw ? DLT_RAW : Int32(bitPattern: rawValue)
    }

    /// The link type for a libpcap `DLT_*` value as returned by `pcap_datalink`.
    init(dataLinkType: Int32) {
        self.init(fileValue: UInt32(bitPattern: dataLinkType))
    }
}
