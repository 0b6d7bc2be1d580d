import CLibpcap

/// The interfaces libpcap can capture on, listed as tcpdump 4.99.3's `-D` lists them
/// (`show_devices_and_exit`): `N.name (description) [Up, Running, Loopback, Connected]`.
public enum InterfaceList {
    /// tcpdump's lines, one per interface, each ending in a newline.
    /// - Throws: ``CaptureError/Code/activationFailed`` with libpcap's message when it cannot
    ///   list the interfaces.
    public static func tcpdumpLines() throws(CaptureError) -> String {
        var list: UnsafeMutablePointer<pcap_if_t>?
        var message = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        if pcap_findalldevs(&list, &message) < 0 {
            throw CaptureError(.activationFailed, String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { pcap_freealldevs(list) }
        var text = ""
        var number = 1
        var device = list
        while let current = device {
            let entry = current.pointee
            text += "\(number).\(String(cString: entry.name))"
            if let description = entry.description { text += " (\(String(cString: description)))" }
            if entry.flags != 0 { text += " [\(flagText(entry.flags))]" }
            text += "\n"
            number += 1
            device = entry.next
        }
        return text
    }

    /// tcpdump's `bittok2str(status_flags, "none", flags)` and the connection status after it.
    static func flagText(_ flags: UInt32) -> String {
        let names: [(UInt32, String)] = [
            (UInt32(PCAP_IF_UP), "Up"), (UInt32(PCAP_IF_RUNNING), "Running"),
            (UInt32(PCAP_IF_LOOPBACK), "Loopback"), (UInt32(PCAP_IF_WIRELESS), "Wireless"),
        ]
        let present = names.filter { flags & $0.0 != 0 }.map(\.1)
        var text = present.isEmpty ? "none" : present.joined(separator: ", ")
        let status = flags & UInt32(PCAP_IF_CONNECTION_STATUS)
        let wireless = flags & UInt32(PCAP_IF_WIRELESS) != 0
        switch status {
        case UInt32(PCAP_IF_CONNECTION_STATUS_UNKNOWN): text += wireless ? ", Association status unknown" : ", Connection status unknown"
        case UInt32(PCAP_IF_CONNECTION_STATUS_CONNECTED): text += wireless ? ", Associated" : ", Connected"
        case UInt32(PCAP_IF_CONNECTION_STATUS_DISCONNECTED): text += wireless ? ", Not associated" : ", Disconnected"
        default: break
        }
        return text
    }
}
