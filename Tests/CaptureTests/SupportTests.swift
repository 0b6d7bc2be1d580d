import Capture
import PacketDecoding
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
import TestSupport
#endif

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

    /// Only the failing lookup is testable in-process: a successful drop cannot be undone.
    /// The CLI test covers the real drop (`-Z nobody`) and the permission message.
    @Test func unknownUserIsOneLineErrorAndChangesNothing() {
        let before = (getuid(), geteuid(), getgid())
        let error = #expect(throws: CaptureError.self) {
            _ = try dropPrivileges(toUser: "no-such-user-sockctl")
        }
        #expect(error?.code == .unknownUser)
        #expect(error?.description == "unknown user 'no-such-user-sockctl'")
        #expect(before == (getuid(), geteuid(), getgid()))
    }
}
