import Capture
import PacketDecoding
import Testing

import Glibc

/// Interface names for SLL2, `-y` names, and the `-Z` checks that do not change the process.
@Suite(.hangGuard) struct SupportTests {
    @Test func loopbackIndexHasItsName() {
        let index = if_nametoindex("lo")
        #expect(index != 0)
        #expect(interfaceName(index: index) == "lo")
        #expect(interfaceName(index: index) == "lo", "second, cached answer")
    }

    @Test func unknownIndexesHaveNoName() {
        #expect(interfaceName(index: 0) == nil)
        #expect(interfaceName(index: 0x7fff_fff0) == nil)
    }

    @Test func linkTypeNamesAreTcpdumps() {
        #expect(LiveCaptureOptions.linkType(named: "EN10MB") == .ethernet)
        #expect(LiveCaptureOptions.linkType(named: "linux_sll2") == .linuxSLL2)
        #expect(LiveCaptureOptions.linkType(named: "LINUX_SLL") == .linuxSLL)
        #expect(LiveCaptureOptions.linkType(named: "RAW") == .raw)
        #expect(LiveCaptureOptions.linkType(named: "ETHERNET") == nil)
        #expect(LiveCaptureOptions.linkType(named: "") == nil)
    }

    /// Only the choice and the failing lookup are testable in-process: a successful drop
    /// cannot be undone. The CLI tests cover the real drop (by default, `-Z nobody`, `-Z root`).
    @Test func unknownUserIsOneLineErrorAndChangesNothing() {
        let before = (getuid(), geteuid(), getgid())
        let error = #expect(throws: CaptureError.self) {
            _ = try PrivilegeDrop.forCapture(user: "no-such-user-sockctl")
        }
        #expect(error?.code == .unknownUser)
        #expect(error?.description == "unknown user 'no-such-user-sockctl'")
        #expect(before == (getuid(), geteuid(), getgid()))
    }

    /// As root, a capture drops to tcpdump's user when it exists, else to nobody; `-Z root`
    /// keeps root; a non-root process has nothing to drop.
    @Test func theDefaultUserIsTcpdumpsThenNobody() throws {
        let drop = try PrivilegeDrop.forCapture(user: nil)
        guard geteuid() == 0 || getuid() == 0 else {
            #expect(drop == nil)
            return
        }
        let expected = getpwnam(PrivilegeDrop.tcpdumpUser) != nil ? PrivilegeDrop.tcpdumpUser : PrivilegeDrop.fallbackUser
        #expect(drop?.user == expected)
        #expect(drop?.uid == getpwnam(expected)?.pointee.pw_uid)
        #expect(try PrivilegeDrop.forCapture(user: "root") == nil)
        #expect(try PrivilegeDrop.forCapture(user: "nobody")?.uid == 65534)
    }
}
