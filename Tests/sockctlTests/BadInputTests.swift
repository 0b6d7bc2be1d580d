import Foundation
import TestSupport
import Testing

/// Usage errors: one line on stderr naming the bad part, nothing on stdout, exit status 2,
/// and no network activity.
@Suite(.hangGuard) struct BadInputTests {
    static let cases: [([String], String)] = [
        (["connect", "localhost:0"], "port 0 is out of range"),
        (["connect", "localhost:65536"], "port 65536 is out of range"),
        (["connect", "localhost"], "missing port"),
        (["connect", ":80"], "empty host"),
        (["connect", "::1:80"], "IPv6 addresses need brackets"),
        (["connect", "[::1:80"], "missing ']'"),
        (["connect", "gopher://h:70"], "unknown scheme 'gopher'"),
        (["connect", "unix:"], "empty socket path"),
        (["connect", "tls://example.com:443", "--pin", "sha256//short"], "invalid pin 'sha256//short'"),
        (["connect", "ws://example.com:0/"], "port 0 is out of range"),
        (["connect", "127.0.0.1:1", "--subprotocol", "chat"], "WebSocket options need a ws:// or wss:// endpoint"),
        (["connect", "ws://127.0.0.1:1/", "--close-code", "1005"], "--close-code 1005 may not be sent"),
        (["connect", "ws://127.0.0.1:1/", "--header", "no colon"], "invalid --header 'no colon': expected 'Name: value', e.g. 'Authorization: Bearer T'"),
        (["connect", "ws://127.0.0.1:1/", "--header", "Sec-WebSocket-Key: x"], "invalid --header 'Sec-WebSocket-Key: x': 'Sec-WebSocket-Key' is set by the WebSocket handshake itself"),
        (["connect", "ws://127.0.0.1:1/", "-H", "Upgrade: h2c"], "invalid --header 'Upgrade: h2c': 'Upgrade' is set by the WebSocket handshake itself"),
        (["connect", "127.0.0.1:1", "-H", "X-A: b"], "--header needs an http://, https://, ws:// or wss:// endpoint (over tcp://, sockctl sends the bytes as given)"),
        (["send", "http://127.0.0.1:1/", "x", "-H", "Content-Length: 5"], "invalid --header 'Content-Length: 5': 'Content-Length' is set by sockctl from the body it sends"),
        (["loadtest", "http://127.0.0.1:1/", "--duration", "1s", "-H", "transfer-encoding: chunked"],
         "invalid --header 'transfer-encoding: chunked': 'transfer-encoding' is set by sockctl: it sends every body with a Content-Length"),
        (["send", "http://127.0.0.1:1/", "x", "--origin", "http://a.example"], "--origin is the WebSocket handshake's Origin: it needs a ws:// or wss:// endpoint (an HTTP request takes -H 'Origin: …')"),
        (["connect", "ws://127.0.0.1:1/", "--max-message", "2GiB"], "--max-message 2GiB is out of range"),
        (["connect", "ws://127.0.0.1:1/", "--crlf"], "--crlf does not apply to WebSocket messages"),
        (["send", "ws://127.0.0.1:1/", "x", "--subprotocol", "a b"], "invalid --subprotocol 'a b': not an HTTP token (expected letters, digits and"),
        (["listen", "0", "--allow-origin", "http://x"], "WebSocket options need a ws:// or wss:// endpoint"),
        (["listen", "ws://127.0.0.1:0/", "--echo", "--delay", "5ms"], "--delay is not supported with --echo or --respond over WebSocket"),
        (["loadtest", "127.0.0.1:1", "--duration", "1s", "--binary"], "WebSocket options need a ws:// or wss:// endpoint"),
        (["loadtest", "ws://127.0.0.1:1/", "--duration", "1s", "--subprotocol", "a b"], "invalid --subprotocol 'a b': not an HTTP token"),
        (["loadtest", "wss://127.0.0.1:1/", "--duration", "1s", "--pin", "sha256//short"], "invalid pin 'sha256//short'"),
        (["loadtest", "127.0.0.1:1", "--from-pcap", "/nonexistent/sessions.pcap"], "--from-pcap /nonexistent/sessions.pcap: "),
        (["loadtest", "127.0.0.1:1", "--from-pcap", GoldenCase.directory.appendingPathComponent("crafted-dhcp.pcap").path], "no TCP stream in this capture"),
        (["loadtest", "127.0.0.1:1", "--from-pcap", GoldenCase.directory.appendingPathComponent("live-lo-tcp4.pcap").path, "--streams", "99"], "has no stream 99"),
        (["loadtest", "127.0.0.1:1", "--from-pcap", "x.pcap", "--streams", "5-1"], "invalid --streams '5-1': '5-1' runs backwards"),
        (["loadtest", "127.0.0.1:1", "--from-pcap", "x.pcap", "--streams", "1,,2"], "invalid --streams '1,,2': an empty item"),
        (["loadtest", "127.0.0.1:1", "--from-pcap", "x.pcap", "-c", "5"], "--connections does not apply to --from-pcap"),
        (["loadtest", "127.0.0.1:1", "--from-pcap", "x.pcap", "--scale", "0"], "--scale must be a whole number from 1 to 100000, not 0"),
        (["loadtest", "127.0.0.1:1", "--from-pcap", "x.pcap", "--verify-sample", "150%"], "invalid --verify-sample '150%' (expected a share from 0% to 100%, e.g. 10%)"),
        (["loadtest", "127.0.0.1:1", "--from-pcap", "x.pcap", "--loop"], "--loop needs --duration or --requests"),
        (["loadtest", "http://127.0.0.1:1/", "--from-pcap", "x.pcap"], "--from-pcap sends the recorded bytes as they are and does not take http:// or https:// targets yet"),
        (["loadtest", "127.0.0.1:1", "--from-pcap", "x.pcap", "--message", "hi"], "--message does not apply to --from-pcap"),
        (["loadtest", "127.0.0.1:1", "--duration", "1s", "--scale", "2"], "--scale needs --from-pcap FILE"),
        (["loadtest", "127.0.0.1:1", "--from-pcap", "x.pcap", "--ignore", "id=[0-9]+"], "--ignore applies to --verify-sample"),
        (["connect", "unix:/tmp/x.sock", "--record", "x.pcap"], "--record records IP sessions (tcp, tls, udp, ws, wss), not unix:"),
        (["listen", "unix:/tmp/x.sock", "--record", "x.pcap"], "listen --record records IP clients (tcp, tls, udp, ws, wss), not unix:"),
        (["send", "127.0.0.1:abc", "x"], "port 'abc' is not a number"),
        (["send", "udp://:53", "x"], "empty host"),
        (["listen", "70000"], "port 70000 is out of range"),
        (["listen", "wss://127.0.0.1:0/"], "listening on wss:// needs --cert and --key"),
        (["connect", "127.0.0.1:1", "--framing", "length:3"], "length width '3' must be 1, 2, 4 or 8"),
        (["connect", "127.0.0.1:1", "--framing", "fixed:0"], "fixed size '0' must be a positive number"),
        (["connect", "127.0.0.1:1", "--max-frame", "lots"], "invalid --max-frame 'lots' (expected a size such as 4096, 64KiB, 16MiB)"),
        (["connect", "127.0.0.1:1", "--connect-timeout", "soon"], "invalid --connect-timeout 'soon' (expected a duration such as 500ms, 2s, 1m)"),
        (["connect", "127.0.0.1:1", "--idle-timeout", "0s"], "--idle-timeout must be greater than zero"),
        (["connect", "127.0.0.1:1", "-4", "-6"], "-4 and -6 exclude each other"),
        (["connect", "127.0.0.1:1", "--send-only", "--recv-only"], "exclude each other"),
        (["connect", "127.0.0.1:1", "--reconnect", "0"], "--reconnect must be a whole number from 1"),
        (["connect", "127.0.0.1:1", "--heartbeat", "x\\q"], "unknown escape"),
        (["connect", "127.0.0.1:1", "--heartbeat-misses", "0", "--heartbeat", "p"], "--heartbeat-misses must be a whole number from 1"),
        (["connect", "127.0.0.1:1", "--crlf", "--framing", "line"], "--crlf applies to raw framing"),
        (["connect", "127.0.0.1:1", "--resolve", "nohost"], "invalid --resolve 'nohost': expected HOST:ADDR[,ADDR...], e.g. api.test:127.0.0.1"),
        (["connect", "127.0.0.1:1", "--resolve", "h:999.1.1.1"], "'999.1.1.1' is not an IP address"),
        (["connect", "127.0.0.1:1", "--interface", "a-name-much-too-long-for-linux"], "invalid interface name"),
        (["listen", "0", "--echo", "--discard"], "choose one of --echo, --discard"),
        (["listen", "0", "--allow", "10.0.0.0/33"], "invalid --allow '10.0.0.0/33' (expected an address or network such as 10.0.0.0/8"),
        (["listen", "0", "--deny", "example.com"], "invalid --deny 'example.com' (expected an address or network"),
        (["listen", "0", "--max-clients=-3"], "--max-clients must not be negative (got -3)"),
        (["listen", "0", "--max-clients", "-3"], "--max-clients must not be negative (got -3)"),
        (["listen", "0", "--delay", "5ms"], "--delay needs --echo, --respond or --broadcast"),
        (["listen", "0", "--respond", "/nonexistent/reply.json"], "--respond /nonexistent/reply.json"),
        (["listen", "unix:/tmp/x.sock", "--allow", "127.0.0.1"], "need an IP listener"),
        (["send", "127.0.0.1:1", "x", "--responses", "2"], "with raw framing the response is everything until the peer closes"),
        (["send", "127.0.0.1:1", "x", "--timeout=-1s"], "--timeout must not be negative (got -1s)"),
        (["send", "127.0.0.1:1", "x", "--repeat", "0"], "--repeat must be a whole number from 1"),
        (["send", "127.0.0.1:1", "-e", "bad\\x4"], "\\x needs two hex digits"),
        (["connect", "127.0.0.1:1", "--no-such-flag"], "unknown option '--no-such-flag' for connect"),
        (["connect", "127.0.0.1:1", "--interface", "nosuch0"], "unknown interface 'nosuch0'"),
        (["send", "127.0.0.1:1", "x", "--source", unresolvableHost], "source address: cannot resolve '\(unresolvableHost)'"),
        (["send", "127.0.0.1:1", "x", "--source", "127.0.0.1:99999"], "invalid source port"),
        (["capture", "-r", "x.pcap", "--decode", "tls,quic"], "unknown view in 'tls,quic' (expected one of tls, ws, http2, http, proxy, all, comma-separated, e.g. tls,ws)"),
        (["capture", "-r", "x.pcap", "--decode", ""], "unknown view in ''"),
        (["capture", "-r", "x.pcap", "-vvvv"], "-v may be given at most three times (-vvv)"),
        (["proxy", "0", "127.0.0.1:1", "--fault", "bogus"], "invalid fault 'bogus': unknown kind 'bogus' (expected one of latency, bandwidth,"),
        (["proxy", "0", "127.0.0.1:1", "--fault", "latency"], "invalid fault 'latency': latency needs a value (latency=…)"),
        (["proxy", "0", "127.0.0.1:1", "--fault", "latency=50ms,dir=sideways"], "dir 'sideways' is not up, down or both"),
        (["proxy", "0", "127.0.0.1:1", "--fault", "drop=200%"], "drop '200%' is not between 0 and 100%"),
        (["proxy", "0", "127.0.0.1:1", "--fault", "stall=5s"], "stall needs every=SIZE, every=Nmsg or every=DURATION"),
        (["proxy", "0", "127.0.0.1:1", "--fault", "latency=50ms,every=3"], "'every' is not a setting of latency"),
        (["proxy", "0", "127.0.0.1:1", "--fault", "drop=2%"], "--fault drop=2% needs messages: --framing, or a ws, wss or udp side"),
        (["proxy", "0", "127.0.0.1:1", "--fault", "close-after-messages=3"], "--fault close-after-messages=3 needs messages"),
        (["proxy", "0", "127.0.0.1:1", "--print-messages"], "--print-messages needs --framing (or a ws, wss or udp side)"),
        (["proxy", "0", "127.0.0.1:1", "--control", "/no/prefix"], "invalid --control '/no/prefix' (expected unix:PATH, e.g. unix:/tmp/proxy.ctl)"),
        (["proxy", "0", "127.0.0.1:1", "--control", "unix:"], "invalid --control 'unix:' (expected unix:PATH"),
        (["proxy", "0", "127.0.0.1:1", "--max-clients", "0"], "--max-clients must be a whole number from 1 to 1000000, not 0"),
        (["proxy", "0", "127.0.0.1:1", "--upstream-insecure"], "--upstream-* TLS options need a tls://, wss:// or https:// upstream"),
        (["proxy", "tls://127.0.0.1:0", "127.0.0.1:1"], "listening on tls:// needs --cert and --key"),
        (["proxy", "unix:/tmp/x.sock", "127.0.0.1:1", "--record", "x.pcap"], "proxy --record records IP clients, not a unix: listener"),
        (["proxy", "0", "127.0.0.1:1", "--udp-idle-timeout", "0s"], "--udp-idle-timeout must be greater than zero"),
        (["proxy", "0"], "missing <upstream> (expected an endpoint such as 127.0.0.1:7000)"),
        (["loadtest", "127.0.0.1:1", "--duration", "1s", "--framing", "line", "--correlate", "id"], "invalid --correlate 'id': no kind (expected json:PATH, regex:RE or bytes:OFFSET:LENGTH"),
        (["loadtest", "127.0.0.1:1", "--duration", "1s", "--framing", "line", "--correlate", "json:$.a["], "invalid --correlate json:$.a[: a '[' is not closed"),
        (["loadtest", "127.0.0.1:1", "--duration", "1s", "--framing", "line", "--correlate", "regex:id=\\d+"], "it has no capture group"),
        (["loadtest", "127.0.0.1:1", "--duration", "1s", "--framing", "line", "--correlate", "bytes:4:0"], "invalid --correlate bytes:4:0: give OFFSET:LENGTH"),
        (["loadtest", "127.0.0.1:1", "--duration", "1s", "--correlate", "json:$.id"], "--correlate json:$.id needs --framing"),
        (["loadtest", "127.0.0.1:1", "--duration", "1s", "--framing", "raw", "--correlate", "json:$.id"], "--correlate over a tcp stream needs a --framing that cuts replies into messages"),
        (["loadtest", "127.0.0.1:1", "--duration", "1s", "--framing", "line", "--correlate", "json:$.id"], "--correlate json:$.id finds no key in the message 'ping'"),
        (["loadtest", "127.0.0.1:1", "--duration", "1s", "--framing", "line", "--pipeline", "4", "--message", "{\"id\":1}", "--correlate", "json:$.id"],
         "every message has the key '1' (it does not change with {{seq}})"),
        (["loadtest", "127.0.0.1:1", "--duration", "1s", "--label", "json:$.op"], "--label json:$.op needs --framing"),
        (["loadtest", "127.0.0.1:1", "--duration", "1s", "--framing", "line", "--label", "json:op."], "invalid --label json:op.: a '.' is not followed by a name"),
        (["loadtest", "127.0.0.1:1", "--duration", "1s", "--threshold", "unmatched<lots"], "'lots' is not a number"),
        (["send", "127.0.0.1:1", "x", "--framing", "line", "--correlate", "json:$.id"], "--correlate finds no key in message 1"),
        (["send", "127.0.0.1:1", "{\"id\":1}", "{\"id\":1}", "--framing", "line", "--correlate", "json:$.id"], "messages 1 and 2 have the same key '1'"),
        (["send", "127.0.0.1:1", "{\"id\":1}", "--correlate", "json:$.id"], "--correlate needs --framing"),
        (["send", "127.0.0.1:1", "{\"id\":1}", "--framing", "line", "--responses", "2", "--correlate", "json:$.id"], "--correlate waits for each message's own reply: drop --responses"),
        (["send", "127.0.0.1:1", "x", "--correlate", "xml:/a"], "unknown kind 'xml'"),
        (["connect"], "missing <endpoint>"),
        (["frobnicate"], "unknown subcommand 'frobnicate'"),
    ]

    @Test(arguments: cases)
    func usageErrorsAreOneLineAndExitTwo(arguments: [String], fragment: String) async throws {
        let result = try await run(try sockctlPath(), arguments)
        #expect(result.status == 2, "\(arguments): status \(result.status), stderr \(result.stderr)")
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
        #expect(lines.count == 1, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(fragment), "\(arguments): \(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"))
    }

    @Test func aFileOverTheFrameLimitIsAUsageError() async throws {
        let scratch = try Scratch()
        _ = try await randomFile(scratch.path("big"), bytes: 2048)
        let result = try await run(try sockctlPath(), ["send", "127.0.0.1:1", "--file", scratch.path("big"), "--max-frame", "1KiB"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("larger than the 1024-byte message limit"))
    }

    @Test func helpListsExamples() async throws {
        for command in ["connect", "listen", "send"] {
            let result = try await run(try sockctlPath(), [command, "--help"])
            #expect(result.status == 0)
            #expect(String(decoding: result.stdout, as: UTF8.self).contains("Examples:"))
        }
    }
}

/// Runtime failures: exit status 1 with a message that says what failed.
@Suite(.hangGuard) struct FailureStatusTests {
    @Test func refusedConnectionsExitOneAndNameTheAddress() async throws {
        let closed = try ClosedPort()
        let port = closed.port
        for command in [["connect", "127.0.0.1:\(port)"], ["send", "127.0.0.1:\(port)", "x"]] {
            let result = try await run(try sockctlPath(), command)
            #expect(result.status == 1)
            // The one address tried is the one written: named once.
            #expect(result.stderr == "sockctl \(command[0]): error: connect to 127.0.0.1:\(port) failed: connection refused (ECONNREFUSED)\n", "\(result.stderr)")
        }
        // A name with one address says which address it tried.
        let named = try await run(try sockctlPath(), ["send", "-4", "localhost:\(port)", "x"])
        #expect(named.stderr == "sockctl send: error: connect to localhost:\(port) failed: 127.0.0.1:\(port): connection refused (ECONNREFUSED)\n", "\(named.stderr)")
        withExtendedLifetime(closed) {}
    }

    @Test func unresolvableNamesExitOne() async throws {
        let result = try await run(try sockctlPath(), ["send", "\(unresolvableHost):80", "x"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot resolve '\(unresolvableHost)'"))
    }

    @Test func sendTimesOutWithStatusOneAndSaysSo() async throws {
        let listener = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--discard", "-k"])
        let port = try await listener.listeningPort()
        let clock = ContinuousClock()
        let started = clock.now
        let result = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "--framing", "line", "hello", "--timeout", "300ms"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("timed out after 300ms waiting for response 1 of 1"))
        // Not before its 300 ms (exactly when: ExchangeTimingTests, in virtual time).
        #expect(clock.now - started >= .milliseconds(300))
        listener.signal(SIGINT)
        #expect(try await listener.wait() == 0)
    }

    @Test func aPeerClosingEarlyIsAFailure() async throws {
        // socat reads both lines, answers one and closes; the second expected response never
        // comes. (It reads both first: a close with unread bytes would be a reset, not a close.)
        let socat = try await Child(try tool("socat"), ["-d", "-d", "TCP-LISTEN:0,bind=127.0.0.1,reuseaddr", "SYSTEM:head -n 2 >/dev/null; echo one"])
        let port = try await socat.socatPort()
        let result = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "--framing", "line", "one", "two", "--responses", "2"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("connection closed after 1 of 2 responses"), "\(result.stderr)")
        #expect(String(decoding: result.stdout, as: UTF8.self) == "one\n")
        socat.signal(SIGTERM)
    }
}
