import Capture
import Dispatch
import PacketDecoding
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Live capture on the loopback interface. Needs root or CAP_NET_RAW (CI and the dev box run
/// the tests as root). Every loop is bounded by a count and by a watchdog that calls stop().
@Suite(.enabled(if: geteuid() == 0, "live capture needs root"))
struct LiveCaptureTests {
    static let watchdogSeconds = 5.0
    /// Matches UDP 9 → 7 only (discard to echo), which nothing on the test machine sends.
    static let silentFilter = "udp src port 9 and udp dst port 7"

    func openLoopback(filter: String?, immediate: Bool = true, timeout: Int = 100) throws -> LiveCapture {
        try LiveCapture.open(LiveCaptureOptions(
            interface: "lo", immediate: immediate, bufferTimeoutMilliseconds: timeout, filter: filter))
    }

    func watchdog(_ capture: LiveCapture) {
        after(seconds: Self.watchdogSeconds) { capture.stop() }
    }

    @Test func runDeliversTheHandshakeOfALoopbackConnection() async throws {
        let listener = try LoopbackListener()
        let capture = try openLoopback(filter: "tcp port \(listener.port)")
        #expect(capture.linkType == .ethernet)
        #expect(capture.banner == "listening on lo, link-type EN10MB (Ethernet), snapshot length 262144 bytes")
        try listener.connectOnce()
        watchdog(capture)

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
        try #require(frames.count == 2, "the watchdog fired: fewer than 2 packets arrived in \(Self.watchdogSeconds) s")
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
        watchdog(capture)

        var packets: [CapturedPacket] = []
        for try await packet in capture.packetStream(count: 2) {
            packets.append(packet)
        }
        try #require(packets.count == 2, "the watchdog fired: fewer than 2 packets arrived in \(Self.watchdogSeconds) s")
        for packet in packets {
            #expect(packet.bytes.count == packet.header.capturedLength)
            #expect(TCPFrame(packet.bytes)?.destinationPort == listener.port)
        }
        #expect(TCPFrame(packets[0].bytes)?.isSYN == true)
        #expect(capture.packetsDroppedByStream == 0)
    }

    @Test func stopEndsALoopThatIsWaitingForPackets() async throws {
        // A filter nothing can match, and a 10 s kernel buffer timeout: only stop() can end this.
        let capture = try openLoopback(filter: Self.silentFilter, immediate: false, timeout: 10_000)
        after(seconds: 0.3) { capture.stop() }
        let (outcome, seen, elapsed) = await onOwnThread { () -> (String, Int, Duration) in
            var seen = 0
            let clock = ContinuousClock()
            let started = clock.now
            do {
                try capture.run { _, _ in seen += 1 }
                return ("returned", seen, clock.now - started)
            } catch {
                return ("\(error)", seen, clock.now - started)
            }
        }
        #expect(outcome == "returned")
        #expect(seen == 0)
        #expect(elapsed < .seconds(3), "run() went on for \(elapsed) after stop() at 0.3 s")
    }

    @Test func stopBeforeRunMakesRunReturnAtOnce() throws {
        let capture = try openLoopback(filter: Self.silentFilter, immediate: false, timeout: 10_000)
        capture.stop()
        let clock = ContinuousClock()
        let elapsed = try clock.measure { try capture.run { _, _ in } }
        #expect(elapsed < .seconds(1))
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

    @Test func zeroCountReturnsWithoutReading() throws {
        let capture = try openLoopback(filter: Self.silentFilter, immediate: false, timeout: 10_000)
        let clock = ContinuousClock()
        let elapsed = try clock.measure { try capture.run(count: 0) { _, _ in } }
        #expect(elapsed < .seconds(1))
    }
}
