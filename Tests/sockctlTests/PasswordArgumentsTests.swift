import Testing

@testable import sockctl

/// Which bytes of the command line are passwords, to be overwritten with `*` once parsed (the
/// process itself is checked in ProxyServerTests, through `/proc/PID/cmdline`).
@Suite("passwords on the command line")
struct PasswordArgumentsTests {
    /// Each argument holding a password, with the password's bytes, as the arguments read after it.
    private func hidden(_ arguments: [String]) -> [String] {
        var result = arguments.map { Array($0.utf8) }
        for (index, range) in PasswordArguments.passwordRanges(in: arguments) {
            for offset in range { result[index][offset] = UInt8(ascii: "*") }
        }
        return result.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func theUserStaysAndThePasswordGoes() {
        #expect(hidden(["proxy", "socks5://:1080", "--proxy-user", "alice:s3:cret"]) == ["proxy", "socks5://:1080", "--proxy-user", "alice:*******"])
        #expect(hidden(["proxy", "--proxy-user=alice:pw"]) == ["proxy", "--proxy-user=alice:**"])
        #expect(hidden(["connect", "--proxy", "socks5://bob:p@ss@127.0.0.1:1080", "h:1"]) == ["connect", "--proxy", "socks5://bob:****@127.0.0.1:1080", "h:1"])
        #expect(hidden(["connect", "--proxy=http://bob:pw@proxy:3128/", "h:1"]) == ["connect", "--proxy=http://bob:**@proxy:3128/", "h:1"])
    }

    @Test func nothingElseIsTouched() {
        for arguments in [
            ["connect", "--proxy", "socks5://127.0.0.1:1080", "h:1"],   // no credentials
            ["connect", "--proxy", "http://bob@proxy:3128", "h:1"],     // no password
            ["proxy", "--proxy-user", "alice:"],                        // an empty password
            ["proxy", "--proxy-user"],                                   // no value: the parser's error
            ["send", "--", "--proxy-user", "a:b"],                       // after --, not an option
            ["send", "h:1", "--message", "--proxy-user a:b"],
        ] {
            #expect(hidden(arguments) == arguments, "\(arguments)")
        }
    }
}
