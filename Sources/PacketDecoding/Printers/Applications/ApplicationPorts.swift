/// The application printer tcpdump 4.99.3 picks for a TCP payload: the first of its port tests
/// (`tcp_print`) that either port passes, in tcpdump's order, so a conversation between two
/// claimed ports prints as the one tcpdump tests first. Debian's tcpdump is built without SMB,
/// so ports 139 and 445 claim nothing.
///
/// The cases sockctl does not print (``isPrinted`` false) are listed so they keep their place
/// in the order: a payload on those ports prints nothing after `length N`, where tcpdump would
/// decode it (the man page lists them).
enum TCPApplication: Equatable {
    case telnet, smtp, whois, bgp, pptp, redis, ssh, beep, openFlow, ftp, http, rtsp, domain, msdp, rpkiRTR, ldp, nfs
    /// No test passed: nothing follows `length N`.
    case none

    init(sourcePort: UInt16, destinationPort: UInt16) {
        func either(_ port: UInt16) -> Bool { sourcePort == port || destinationPort == port }
        self = if either(23) { .telnet }
            else if either(25) { .smtp }
            else if either(43) { .whois }
            else if either(179) { .bgp }
            else if either(1723) { .pptp }
            else if either(6379) { .redis }
            else if either(22) { .ssh }
            else if either(10288) { .beep }
            else if either(6633) || either(6653) { .openFlow }
            else if either(21) { .ftp }
            else if either(80) || either(8080) { .http }
            else if either(554) || either(8554) { .rtsp }
            else if either(53) { .domain }
            else if either(639) { .msdp }
            else if either(323) { .rpkiRTR }
            else if either(646) { .ldp }
            else if either(2049) { .nfs }
            else { .none }
    }

    /// sockctl prints this application as tcpdump does.
    var isPrinted: Bool {
        switch self {
        case .telnet, .smtp, .whois, .redis, .ssh, .ftp, .http, .rtsp, .domain: true
        case .bgp, .pptp, .beep, .openFlow, .msdp, .rpkiRTR, .ldp, .nfs, .none: false
        }
    }
}

/// The application printer tcpdump 4.99.3 picks for a UDP payload (`udp_print`), in its order;
/// see ``TCPApplication``. A few tests look at one port only (VAT, whiteboard, HSRP, BFD, LWAPP
/// control, BCM LI) and AppleTalk-in-UDP also needs the payload's first byte (2, DDP).
///
/// Not printed by sockctl (``isPrinted`` false): those datagrams print tcpdump's generic
/// `UDP, length N` line where tcpdump would decode them (the man page lists them).
enum UDPApplication: Equatable {
    case domain, multicastDomain, timed, tftp, bootp, rip, aodv, isakmp, isakmpNATT, snmp, ntp, kerberos, l2tp
    case vat, zephyr, rx, ripng, dhcp6, ahcp, babel, hncp, whiteboard, ciscoAutoRP, radius, hsrp, lwres, ldp, olsr
    case lspPing, bcmLI, bfd, lmp, vqp, sflow, lwappControl, lwappData, sip, syslog, otv, vxlan, geneve, lisp
    case vxlanGPE, zep, mpls, appleTalk, ptp, someIP
    /// No test passed: `UDP, length N`.
    case none

    /// `firstByte`: the payload's first byte when it was captured.
    init(sourcePort: UInt16, destinationPort: UInt16, firstByte: UInt8?) {
        func either(_ port: UInt16) -> Bool { sourcePort == port || destinationPort == port }
        func appleTalkPort(_ port: UInt16) -> Bool {
            (16512..<16640).contains(port) || (200..<328).contains(port) || (768..<896).contains(port)
        }
        self = if either(53) { .domain }
            else if either(5353) { .multicastDomain }
            else if either(525) { .timed }
            else if either(69) { .tftp }
            else if either(68) || either(67) { .bootp }
            else if either(520) { .rip }
            else if either(654) { .aodv }
            else if either(500) { .isakmp }
            else if either(4500) { .isakmpNATT }
            else if either(7500) || either(8500) { .isakmp }
            else if either(161) || either(162) { .snmp }
            else if either(123) { .ntp }
            else if either(88) || either(750) { .kerberos }
            else if either(1701) { .l2tp }
            else if destinationPort == 3456 { .vat }
            else if either(2103) || either(2104) { .zephyr }
            else if (7000...7009).contains(sourcePort) || (7000...7009).contains(destinationPort) { .rx }
            else if either(521) { .ripng }
            else if either(546) || either(547) { .dhcp6 }
            else if either(5359) { .ahcp }
            else if either(6696) || either(6697) { .babel }
            else if either(8231) { .hncp }
            else if destinationPort == 4567 { .whiteboard }
            else if either(496) { .ciscoAutoRP }
            else if either(1645) || either(1812) || either(1646) || either(1813) || either(1700) || either(3799) { .radius }
            else if destinationPort == 1985 { .hsrp }
            else if either(921) { .lwres }
            else if either(646) { .ldp }
            else if either(698) { .olsr }
            else if either(3503) { .lspPing }
            else if sourcePort == 49152 { .bcmLI }
            else if [3784, 4784, 6784, 3785].contains(destinationPort) { .bfd }
            else if either(701) { .lmp }
            else if either(1589) { .vqp }
            else if either(6343) { .sflow }
            else if destinationPort == 12223 || sourcePort == 12223 { .lwappControl }
            else if either(12222) { .lwappData }
            else if either(5060) { .sip }
            else if either(514) { .syslog }
            else if either(8472) { .otv }
            else if either(4789) { .vxlan }
            else if either(6081) { .geneve }
            else if either(4342) { .lisp }
            else if either(4790) { .vxlanGPE }
            else if either(17754) { .zep }
            else if either(6635) { .mpls }
            else if firstByte == 2 && (appleTalkPort(sourcePort) || appleTalkPort(destinationPort)) { .appleTalk }
            else if either(319) || either(320) { .ptp }
            else if either(30490) { .someIP }
            else { .none }
    }

    /// sockctl prints this application as tcpdump does.
    var isPrinted: Bool {
        switch self {
        case .domain, .multicastDomain, .bootp, .ntp, .dhcp6, .sip, .syslog, .vxlan, .geneve: true
        default: false
        }
    }
}
