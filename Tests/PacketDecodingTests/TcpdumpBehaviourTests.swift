import Testing
@testable import PacketDecoding
import TestSupport

/// One frame and what tcpdump 4.99.3 prints for it with `-n -t` (and `-X` when `hexDump`).
struct TcpdumpCase: Sendable, CustomTestStringConvertible {
    let name: String
    let frame: [UInt8]
    let wireLength: Int?
    let hexDump: Bool
    let expected: String

    init(_ name: String, _ hex: String, wireLength: Int? = nil, hexDump: Bool = false, _ expected: String) {
        self.name = name
        var bytes: [UInt8] = []
        var digits = hex.utf8.makeIterator()
        while let high = digits.next(), let low = digits.next() {
            bytes.append(UInt8(Self.nibble(high) << 4 | Self.nibble(low)))
        }
        self.frame = bytes
        self.wireLength = wireLength
        self.hexDump = hexDump
        self.expected = expected
    }

    private static func nibble(_ digit: UInt8) -> UInt8 {
        digit <= UInt8(ascii: "9") ? digit - UInt8(ascii: "0") : digit - UInt8(ascii: "a") + 10
    }

    var testDescription: String { name }
}

/// Protocol corners the goldens do not reach, each checked against the real tcpdump 4.99.3:
/// MPTCP sub-options and their length checks, IPv6 jumbo payloads and cut extension headers,
/// ICMP/ICMPv6 messages (including where tcpdump's checked and longjmp truncations differ in
/// what `-X` dumps), and ARP variants. The expected texts are tcpdump's stdout for the frame.
@Suite(.hangGuard) struct TcpdumpBehaviourTests {
    static let cases: [TcpdumpCase] = [
        TcpdumpCase("mptcp dss with ack, mapping and checksum", "02000000001402000000000a08004500003c1234400040063c36c000020ac63364149c401b390000000100000005a01001f67bd000001e14200500000001000000020000000300040005",
                    "IP 192.0.2.10.40000 > 198.51.100.20.6969: Flags [.], ack 5, win 502, options [mptcp 20 dss ack 1 seq 2 subseq 3 len 4 csum 0x5], length 0\n"),
        TcpdumpCase("mptcp dss with bytes left over", "02000000001402000000000a08004500003c1234400040063c36c000020ac63364149c401b390000000100000005a01001f67bd900001e14200100000001000000020000000300000004",
                    "IP 192.0.2.10.40000 > 198.51.100.20.6969: Flags [.], ack 5, win 502, options [mptcp 20 dss ack 1[bad opt]\n"),
        TcpdumpCase("mptcp join of SYN length on an ACK", "02000000001402000000000a0800450000341234400040063c3ec000020ac63364149c401b390000000100000005801001f6305300001e0c1002aabbccdd01020304",
                    "IP 192.0.2.10.40000 > 198.51.100.20.6969: Flags [.], ack 5, win 502, options [mptcp 12 join[bad opt]\n"),
        TcpdumpCase("mptcp add-addr echo with port", "02000000001402000000000a0800450000341234400040063c3ec000020ac63364149c401b390000000100000005800201f6607100001e0a31010a0000011f900101",
                    "IP 192.0.2.10.40000 > 198.51.100.20.6969: Flags [S], seq 1, win 502, options [mptcp 10 add-addr v1-echo id 1 10.0.0.1:8080,nop,nop], length 0\n"),
        TcpdumpCase("mptcp add-addr IPv6 with port and hmac", "02000000001402000000000a0800450000481234400040063c2ac000020ac63364149c401b390000000100000005d00201f60ac100001e1e320120010db8000000000000000000000010005000000000000000000101",
                    "IP 192.0.2.10.40000 > 198.51.100.20.6969: Flags [S], seq 1, win 502, options [mptcp 30 add-addr [bad version/echo] id 1 2001:db8::10:80 hmac 0x0,nop,nop], length 0\n"),
        TcpdumpCase("mptcp subtype 8 is unknown", "02000000001402000000000a08004500002c1234400040063c46c000020ac63364149c401b390000000100000005600201f65c1200001e048000",
                    "IP 192.0.2.10.40000 > 198.51.100.20.6969: Flags [S], seq 1, win 502, options [mptcp 4 unknown], length 0\n"),
        TcpdumpCase("option cut after an mptcp option names mptcp", "02000000001402000000000a0800450000381234400040063c3ac000020ac63364149c401b390000000100000005900201f652f700001e045001080a00000001000000", wireLength: 70,
                    "IP 192.0.2.10.40000 > 198.51.100.20.6969: Flags [S], seq 1, win 502, options [mptcp 4 prio non-backup id 1,TS [|mptcp]>\n"),
        TcpdumpCase("ipv6 jumbo payload", "02000000001402000000000a86dd600000000000004020010db800000000000000000000001020010db80000000000000000000000200600c20400011170a4111b3a0000000100000002501801f68db500007b226964223a372c226f70223a22736574222c226b6579223a226b222c2276616c7565223a5b312c322c335d7d0d0a", wireLength: 70054,
                    "IP6 2001:db8::10 > 2001:db8::20: HBH 42001 > 6970: Flags [P.], seq 1:69973, ack 2, win 502, length 69972\n"),
        TcpdumpCase("ipv6 zero payload length without jumbo option", "02000000001402000000000a86dd600000000000004020010db800000000000000000000001020010db80000000000000000000000200600010400000000a4111b3a0000000100000002501801f68db500007b226964223a372c226f70223a22736574222c226b6579223a226b222c2276616c7565223a5b312c322c335d7d0d0a",
                    "IP6 2001:db8::10 > 2001:db8::20: HBH [No valid Jumbo Payload Hop-by-Hop option found] (invalid)\n"),
        TcpdumpCase("ipv6 hop-by-hop router alert of wrong length", "02000000001402000000000a86dd60000000004b004020010db800000000000000000000001020010db80000000000000000000000200600050300000000a4111b3a0000000100000002501801f68db500007b226964223a372c226f70223a22736574222c226b6579223a226b222c2276616c7565223a5b312c322c335d7d0d0a",
                    "IP6 2001:db8::10 > 2001:db8::20: HBH (rtalert: invalid len 3) [|hbhopt]\n"),
        TcpdumpCase("ipv6 routing header cut in its address", "02000000001402000000000a86dd60000000005b2b4020010db800000000000000000000001020010db8000000000000000000000020060200010000000020010db80000000000000000", wireLength: 145, hexDump: true,
                    "IP6 2001:db8::10 > 2001:db8::20: RT6 (len=2, type=0 [Deprecated], segleft=1 [|rt6]\n\t0x0000:  0200 0000 0014 0200 0000 000a 86dd 6000  ..............`.\n\t0x0010:  0000 005b 2b40 2001 0db8 0000 0000 0000  ...[+@..........\n\t0x0020:  0000 0000 0010 2001 0db8 0000 0000 0000  ................\n\t0x0030:  0000 0000 0020 0602 0001 0000 0000 2001  ................\n\t0x0040:  0db8 0000 0000 0000 0000                 ..........\n"),
        TcpdumpCase("ipv6 routing header of odd length", "02000000001402000000000a86dd6000000000632b4020010db800000000000000000000001020010db8000000000000000000000020060300010000000020010db80000000000000000000000200000000000000000a4111b3a0000000100000002501801f68db500007b226964223a372c226f70223a22736574222c226b6579223a226b222c2276616c7565223a5b312c322c335d7d0d0a",
                    "IP6 2001:db8::10 > 2001:db8::20: RT6 (len=3, type=0 [Deprecated], segleft=1 (invalid length 3) (invalid)\n"),
        TcpdumpCase("ipv6 fragment header cut before its offset", "02000000001402000000000a86dd60000000004b2c4020010db800000000000000000000001020010db8000000000000000000000020060000", wireLength: 129, hexDump: true,
                    "IP6 2001:db8::10 > 2001:db8::20:  [|frag6]\n\t0x0000:  0200 0000 0014 0200 0000 000a 86dd 6000  ..............`.\n\t0x0010:  0000 004b 2c40 2001 0db8 0000 0000 0000  ...K,@..........\n\t0x0020:  0000 0000 0010 2001 0db8 0000 0000 0000  ................\n\t0x0030:  0000 0000 0020 0600 00                   .........\n"),
        TcpdumpCase("ipv6 fragment header cut after its offset", "02000000001402000000000a86dd60000000004b2c4020010db800000000000000000000001020010db800000000000000000000002006000001", wireLength: 129,
                    "IP6 2001:db8::10 > 2001:db8::20: frag (0|67) \n"),
        TcpdumpCase("icmp time exceeded with its datagram cut", "02000000001402000000000a08004500002b1234400040013c4cc000020ac63364140b001f5200000000450000281234400040063c4ac00002", hexDump: true,
                    "IP 192.0.2.10 > 198.51.100.20:  [|icmp]\n\t0x0000:  4500 002b 1234 4000 4001 3c4c c000 020a  E..+.4@.@.<L....\n\t0x0010:  c633 6414 0b00 1f52 0000 0000 4500 0028  .3d....R....E..(\n\t0x0020:  1234 4000 4006 3c4a c000 02              .4@.@.<J...\n"),
        TcpdumpCase("icmp router advertisement", "02000000001402000000000a08004500002c1234400040013c4bc000020ac63364140900d8ed020207080a000001000000050a00000200000100",
                    "IP 192.0.2.10 > 198.51.100.20: ICMP router advertisement lifetime 30:00 2: {10.0.0.1 5} {10.0.0.2 256}, length 24\n"),
        TcpdumpCase("icmp time stamp reply", "02000000001402000000000a0800450000281234400040013c4fc000020ac63364140e00b3d7000000000037dcc90000000205265bff",
                    "IP 192.0.2.10 > 198.51.100.20: ICMP time stamp reply id 0 seq 0: org 01:01:01.001, recv 00:00:00.002, xmit 23:59:59.999, length 20\n"),
        TcpdumpCase("icmp redirect for type of service and net", "02000000001402000000000a0800450000381234400040013c3fc000020ac63364140502387f0a0000fe450000281234400040063c4ac000020ac63364149c461b3900000001",
                    "IP 192.0.2.10 > 198.51.100.20: ICMP redirect-tos 198.51.100.20 to net 10.0.0.254, length 36\n"),
        TcpdumpCase("icmp6 unknown unreachable code", "02000000001402000000000a86dd6000000000103a4020010db800000000000000000000001020010db800000000000000000000002001050000000000006162636465666768",
                    "IP6 2001:db8::10 > 2001:db8::20: ICMP6, destination unreachable, unknown unreach code (5)\n\t0x0000:  0105 0000 0000 0000 6162 6364 6566 6768\n"),
        TcpdumpCase("icmp6 port unreachable behind destination options", "02000000001402000000000a86dd6000000000443a4020010db800000000000000000000001020010db800000000000000000000002001040000000000006000000000143c4020010db800000000000000000000002020010db80000000000000000000000101100000000000000a4140009000c214670696e67",
                    "IP6 2001:db8::10 > 2001:db8::20: ICMP6, destination unreachable, unreachable port, 2001:db8::10 udp port 9, length 68\n"),
        TcpdumpCase("icmp6 beyond scope", "02000000001402000000000a86dd6000000000443a4020010db800000000000000000000001020010db800000000000000000000002001020000000000006000000000143c4020010db800000000000000000000002020010db80000000000000000000000101100000000000000a4140009000c214670696e67",
                    "IP6 2001:db8::10 > 2001:db8::20: ICMP6, destination unreachable, beyond scope 2001:db8::10, source address 2001:db8::20, length 68\n"),
        TcpdumpCase("icmp6 multicast listener report", "02000000001402000000000a86dd6000000000183a4020010db800000000000000000000001020010db800000000000000000000002083000000000a000020010db8000000000000000000000020",
                    "IP6 2001:db8::10 > 2001:db8::20: ICMP6, multicast listener reportmax resp delay: 10 addr: 2001:db8::20, length 24\n"),
        TcpdumpCase("icmp6 node information reply with a name", "02000000001402000000000a86dd6000000000253a4020010db800000000000000000000001020010db80000000000000000000000208c0000000002000100000000000000000000012c03777777076578616d706c6503636f6d00",
                    "IP6 2001:db8::10 > 2001:db8::20: ICMP6, who-are-you reply node information reply (DNS name, \"www.example.com.\" [TTL=300]), length 37\n"),
        TcpdumpCase("icmp6 node information query for addresses", "02000000001402000000000a86dd6000000000203a4020010db800000000000000000000001020010db80000000000000000000000208b0000000003003f000000000000000020010db8000000000000000000000010",
                    "IP6 2001:db8::10 > 2001:db8::20: ICMP6, who-are-you request node information query (node addresses [GSLCA], subject=2001:db8::10), length 32\n"),
        TcpdumpCase("icmp6 router renumbering command", "02000000001402000000000a86dd6000000000683a4020010db800000000000000000000001020010db80000000000000000000000208a000000000000000000000000000000020b00300000000020010db8000000000000000000000010404000000000000000000000c000000020010db80000000000000000000000204020000000000000000000000000000020010db8000000000000000000000010",
                    "IP6 2001:db8::10 > 2001:db8::20: ICMP6, router renumbering, command, seq=0 match(change,2001:db8::10/48) use(VP,2001:db8::20/64/64) use(2001:db8::10/64/32), length 104\n"),
        TcpdumpCase("icmp6 mtrace message", "02000000001402000000000a86dd60000000000d3a4020010db800000000000000000000001020010db8000000000000000000000020c90000000000000068656c6c6f",
                    "IP6 2001:db8::10 > 2001:db8::20: ICMP6, mtrace message, length 13\n\t0x0000:  c900 0000 0000 0000 6865 6c6c 6f\n"),
        TcpdumpCase("arp reverse request", "02000000001402000000000a8035000108000604000302000000000ac000020a020000000014c6336414",
                    "ARP, Reverse Request who-is 02:00:00:00:00:14 tell 02:00:00:00:00:0a, length 28\n"),
        TcpdumpCase("arp unknown operation is dumped even with -X", "02000000001402000000000a0806000108000604000502000000000ac000020a020000000014c6336414", hexDump: true,
                    "ARP, Unknown (5) \n\t0x0000:  0001 0800 0604 0005 0200 0000 000a c000  ................\n\t0x0010:  020a 0200 0000 0014 c633 6414            .........3d.\n\t0x0000:  0001 0800 0604 0005 0200 0000 000a c000  ................\n\t0x0010:  020a 0200 0000 0014 c633 6414            .........3d.\n"),
        TcpdumpCase("atm arp reply", "02000000001402000000000a0806001308001402000204140004000102030405060708090a0b0c0d0e0f101112130001c000020a000102030405060708090a0b0c0d0e0f10111213c6336414",
                    "ARP, Reply 192.0.2.10 is-at 00:01:02:03:04:05:06:07:08:09:0a:0b:0c:0d:0e:0f:10:11:12:13,00:01, length 62\n"),
        TcpdumpCase("arp of another protocol", "02000000001402000000000a0806000686dd0610000102000000000a20010db800000000000000000000001002000000001420010db8000000000000000000000020",
                    "ARP, TokenRing (len 6), IPv6 (len 16), length 52\n"),
    ]

    @Test(arguments: cases)
    func printsWhatTcpdumpPrints(_ golden: TcpdumpCase) {
        let options = PrintOptions(dump: golden.hexDump ? .hexAndASCII : .none, timestamps: .none)
        let rendered = PacketPrinterTests.render(golden.frame, options: options, wireLength: golden.wireLength)
        #expect(rendered == golden.expected)
    }
}
