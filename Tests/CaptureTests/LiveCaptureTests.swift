import Capture
import Dispatch
import PacketDecoding
import SocketEngine
import TestSupport
import Testing

import Glibc

/// Live capture on the loopback interface. Needs root or CAP_NET_RAW (CI and the dev box run
/// the tests as root). Every loop is bounded by a count of packets the test itself sends, or
/// ended by stop() once the loop has shown it runs; blocking loops run on threads of their own.
@Suite(.enabled(if: geteuid() == 0, "live capture needs root"), .hangGuard)
struct LiveCaptureTests {
    /// Matches UDP 9 → 7 only (discard to echo), which nothing on the test machine sends.
    static let silentFilter = "udp src port 9 and udp dst port 7"

    func openLoopback(filter: String?, immediate: Bool = true, timeout: Int = 100) throws -> LiveCapture {
        try LiveCapture.open(LiveCaptureOptions(
            interface: "lo", immediate: immediate, bufferTimeoutMilliseconds: timeout, filter: filter))
    }

    @Test func runDeliversTheHandshakeOfALoopbackConnection() async throws {
        let listener = try LoopbackListener()
        let capture = try openLoopback(filter: "tcp port \(listener.port)")
        #expect(capture.linkType == .ethernet)
        #expect(capture.banner == "listening on lo, link-type EN10MB (Ethernet), snapshot length 262144 bytes")
        try listener.connectOnce()

        let frames = await onOwnThread { () -> [[UInt8]] in
            var frames: [[UInt8]] = []
            do {
                try capture.run(count: 2) { header, bytes in
                    if header.capturedLength == bytes.count && header.linkType == .ethernet { frames.append(Array(bytes)) }
                }
            } catch {
                return []
            }
            return frames
        }
        try #require(frames.count == 2)
        let syn = try #require(TCPFrame(frames[0]))
        #expect(syn.destinationPort == listener.port)
        #expect(syn.isSYN)
        let statistics = try #require(capture.statistics())
        #expect(statistics.received >= 2)
    }

    @Test func asyncSequenceDeliversOwnedCopies() async throws {
        let listener = try LoopbackListener()
        let capture = try openLoopback(filter: "tcp dst port \(listener.port)")
        try listener.connectOnce()

        var packets: [CapturedPacket] = []
        for try await packet in capture.packetStream(count: 2) {
            packets.append(packet)
        }
        try #require(packets.count == 2)
        for packet in packets {
            #expect(packet.bytes.count == packet.header.capturedLength)
            #expect(TCPFrame(packet.bytes)?.destinationPort == listener.port)
        }
        #expect(TCPFrame(packets[0].bytes)?.isSYN == true)
        #expect(capture.packetsDroppedByStream == 0)
    }

    /// A loop waiting for packets (a 10 s kernel buffer timeout, nothing more to come) ends as
    /// soon as stop() is called: once it has delivered the one datagram the test sent, the test
    /// stops it. Were stop() not to wake it, it would wait forever (and the suite time limit
    /// would end the test).
    @Test func stopEndsALoopThatIsWaitingForPackets() async throws {
        let receiver = try UDPSocket()
        let capture = try openLoopback(filter: "udp dst port \(receiver.port)", immediate: true, timeout: 10_000)
        let delivered = AsyncMonitor(0)
        try receiver.sendToItself([1, 2, 3])
        let running = Task { () -> (String, Int) in
            await onOwnThread { () -> (String, Int) in
                var seen = 0
                do {
                    try capture.run { _, _ in
                        seen += 1
                        delivered.update { $0 += 1 }
                    }
                    return ("returned", seen)
                } catch {
                    return ("\(error)", seen)
                }
            }
        }
        try await delivered.wait { $0 >= 1 ? () : nil }
        capture.stop()
        let (outcome, seen) = await finished(running)
        #expect(outcome == "returned")
        #expect(seen == 1)
    }

    @Test func stopBeforeRunMakesRunReturnAtOnce() async throws {
        let capture = try openLoopback(filter: Self.silentFilter, immediate: false, timeout: 10_000)
        capture.stop()
        let seen = try await onOwnThread { () throws -> Int in
            var seen = 0
            try capture.run { _, _ in seen += 1 }
            return seen
        }
        #expect(seen == 0)
    }

    @Test func theAnyDeviceDefaultsToLinuxCookedV2() throws {
        let capture = try LiveCapture.open(LiveCaptureOptions(interface: "any", filter: Self.silentFilter))
        #expect(capture.linkType == .linuxSLL2)
        #expect(capture.banner == "listening on any, link-type LINUX_SLL2 (Linux cooked v2), snapshot length 262144 bytes")
    }

    @Test func requestedLinkTypeIsUsed() throws {
        let capture = try LiveCapture.open(LiveCaptureOptions(interface: "any", filter: Self.silentFilter, linkType: .linuxSLL))
        #expect(capture.linkType == .linuxSLL)
    }

    @Test func unsupportedLinkTypeIsOneLineError() {
        let error = #expect(throws: CaptureError.self) {
            _ = try LiveCapture.open(LiveCaptureOptions(interface: "lo", linkType: .linuxSLL2))
        }
        #expect(error?.code == .linkTypeNotSupported)
        #expect(error?.description == "LINUX_SLL2 is not one of the link types supported by lo")
    }

    @Test func missingInterfaceIsReportedLikeTcpdump() {
        let error = #expect(throws: CaptureError.self) {
            _ = try LiveCapture.open(LiveCaptureOptions(interface: "nosuchif0"))
        }
        #expect(error?.code == .noSuchDevice)
        #expect(error?.description == "nosuchif0: No such device exists")
    }

    @Test func badFilterOnALiveCaptureIsOneLineError() {
        let error = #expect(throws: CaptureError.self) {
            _ = try LiveCapture.open(LiveCaptureOptions(interface: "lo", filter: "tcp port"))
        }
        #expect(error?.code == .invalidFilter)
        #expect(error?.description == "can't parse filter expression: syntax error")
    }

    @Test func zeroCountReturnsWithoutReading() async throws {
        let capture = try openLoopback(filter: Self.silentFilter, immediate: false, timeout: 10_000)
        let seen = try await onOwnThread { () throws -> Int in
            var seen = 0
            try capture.run(count: 0) { _, _ in seen += 1 }
            return seen
        }
        #expect(seen == 0)
    }
}
