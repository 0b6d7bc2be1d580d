import Capture
import PacketDecoding
import Testing
import TestSupport

/// Offline BPF: the same expressions tcpdump users type, applied to hand-made frames.
@Suite(.hangGuard) struct PacketFilterTests {
    @Test func tcpPortMatchesOnlyThatTCPPort() throws {
        let filter = try PacketFilter(expression: "tcp port 6969", linkType: .ethernet)
        #expect(filter.matches(Frames.header(Frames.tcp4(destinationPort: 6969)), Frames.tcp4(destinationPort: 6969)))
        #expect(filter.matches(Frames.header(Frames.tcp4(sourcePort: 6969, destinationPort: 40000)), Frames.tcp4(sourcePort: 6969, destinationPort: 40000)))
        #expect(!filter.matches(Frames.header(Frames.tcp4(destinationPort: 6970)), Frames.tcp4(destinationPort: 6970)))
        #expect(!filter.matches(Frames.header(Frames.udp4(destinationPort: 6969)), Frames.udp4(destinationPort: 6969)))
        #expect(filter.matches(Frames.header(Frames.tcp6(destinationPort: 6969)), Frames.tcp6(destinationPort: 6969)))
    }

    @Test func udpMatchesUDPOnly() throws {
        let filter = try PacketFilter(expression: "udp", linkType: .ethernet)
        #expect(filter.matches(Frames.header(Frames.udp4(destinationPort: 53)), Frames.udp4(destinationPort: 53)))
        #expect(!filter.matches(Frames.header(Frames.tcp4(destinationPort: 53)), Frames.tcp4(destinationPort: 53)))
        #expect(!filter.matches(Frames.header(Frames.tcp6(destinationPort: 53)), Frames.tcp6(destinationPort: 53)))
    }

    @Test func ip6MatchesIPv6Only() throws {
        let filter = try PacketFilter(expression: "ip6", linkType: .ethernet)
        #expect(filter.matches(Frames.header(Frames.tcp6(destinationPort: 80)), Frames.tcp6(destinationPort: 80)))
        #expect(!filter.matches(Frames.header(Frames.tcp4(destinationPort: 80)), Frames.tcp4(destinationPort: 80)))
        #expect(!filter.matches(Frames.header(Frames.udp4(destinationPort: 80)), Frames.udp4(destinationPort: 80)))
    }

    @Test func emptyExpressionMatchesEverything() throws {
        let filter = try PacketFilter(expression: "", linkType: .ethernet)
        #expect(filter.matches(Frames.header(Frames.udp4(destinationPort: 1)), Frames.udp4(destinationPort: 1)))
        #expect(filter.matches(Frames.header([]), [UInt8]()))
    }

    @Test func truncatedAndEmptyPacketsFailTheTestWithoutCrashing() throws {
        let filter = try PacketFilter(expression: "tcp port 6969", linkType: .ethernet)
        let whole = Frames.tcp4(destinationPort: 6969)
        for length in 0..<whole.count - 20 {
            let cut = Array(whole.prefix(length))
            #expect(!filter.matches(Frames.header(cut), cut), "cut to \(length) bytes")
        }
        // A header claiming more bytes than there are is capped at the bytes present.
        var lying = Frames.header(Array(whole.prefix(20)))
        lying.capturedLength = 100_000
        #expect(!filter.matches(lying, Array(whole.prefix(20))))
    }

    @Test func expressionIsCompiledForTheGivenLinkType() throws {
        let sll2 = try PacketFilter(expression: "tcp port 6969", linkType: .linuxSLL2)
        let packet = Frames.sll2(wrapping: Frames.tcp4(destinationPort: 6969))
        #expect(sll2.matches(Frames.header(packet, linkType: .linuxSLL2), packet))
        let ethernet = try PacketFilter(expression: "tcp port 6969", linkType: .ethernet)
        #expect(!ethernet.matches(Frames.header(packet, linkType: .linuxSLL2), packet))
        let raw = try PacketFilter(expression: "tcp port 6969", linkType: .raw)
        let bare = Array(Frames.tcp4(destinationPort: 6969).dropFirst(14))
        #expect(raw.matches(Frames.header(bare, linkType: .raw), bare))
    }

    @Test func syntaxErrorIsOneLineInLibpcapWording() {
        let error = #expect(throws: CaptureError.self) {
            _ = try PacketFilter(expression: "tcp port", linkType: .ethernet)
        }
        #expect(error?.code == .invalidFilter)
        #expect(error?.description == "can't parse filter expression: syntax error")
    }

    @Test func outOfRangePortIsRejected() {
        let error = #expect(throws: CaptureError.self) {
            _ = try PacketFilter(expression: "tcp port 99999", linkType: .ethernet)
        }
        #expect(error?.code == .invalidFilter)
        #expect(error?.description == "illegal port number 99999 > 65535")
        #expect(error?.description.contains("\n") == false)
    }
}

/// capture's filter parts and its closing statistics, as tcpdump words them.
@Suite(.hangGuard) struct CaptureWordingTests {
    @Test func filterPartsAreParenthesisedAndJoinedWithAnd() {
        #expect(PacketFilter.combining(port: nil, expression: nil, words: []) == nil)
        #expect(PacketFilter.combining(port: nil, expression: "", words: []) == nil)
        #expect(PacketFilter.combining(port: 80, expression: nil, words: []) == "tcp port 80")
        #expect(PacketFilter.combining(port: nil, expression: nil, words: ["udp", "or", "icmp"]) == "udp or icmp")
        #expect(PacketFilter.combining(port: 80, expression: "host 127.0.0.1", words: ["not", "udp"])
            == "(tcp port 80) and (host 127.0.0.1) and (not udp)")
    }

    @Test func statisticsLinesFollowTcpdump() {
        #expect(CaptureStatistics.tcpdumpLines(captured: 1, nil) == "1 packet captured\n")
        let counters = CaptureStatistics(received: 1, droppedByKernel: 0, droppedByInterface: 0)
        #expect(CaptureStatistics.tcpdumpLines(captured: 2, counters)
            == "2 packets captured\n1 packet received by filter\n0 packets dropped by kernel\n")
        let dropped = CaptureStatistics(received: 5, droppedByKernel: 2, droppedByInterface: 1)
        #expect(CaptureStatistics.tcpdumpLines(captured: 3, dropped).hasSuffix("2 packets dropped by kernel\n1 packet dropped by interface\n"))
    }
}
