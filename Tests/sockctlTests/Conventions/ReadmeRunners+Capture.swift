import Foundation

/// README: "capture — tcpdump's output, byte for byte".
///
/// Live captures run as root (CI runs the tests as root; `sudo` is dropped) on the port of a
/// server the runner starts. A live capture's stdout is fully buffered off a terminal, so the
/// runner adds `-l` where it waits for a packet line before it stops the capture.
extension ReadmeRunners {
    static let capture: [ReadmeRunner] = [
        ReadmeRunner("sockctl capture -i lo --decode proxy,tls tcp port 7000") { run in
            let server = try await run.listen("127.0.0.1:0", "--accept-proxy-protocol", "--echo", "-k")
            run.replace("7000", with: "\(server.port)")
            run.add("-l")
            try await run.start()
            try await run.waitForStderr("listening on lo")
            try await run.sockctl(["send", server.address, "PROXY TCP4 192.0.2.7 198.51.100.1 40001 443\r\nping"])
            try await run.waitForStdout("    PROXY protocol v1 192.0.2.7:40001 > 198.51.100.1:443")
            try await run.interrupt(expecting: 0)
        },
        ReadmeRunner("sudo sockctl capture --port 6969") { run in
            let server = try await run.listen("127.0.0.1:0", "--echo", "-k")
            run.replace("6969", with: "\(server.port)")
            run.add("-l")
            try await run.start()
            try await run.waitForStderr("listening on")
            try await run.sockctl(["send", server.address, "captured"])
            try await run.waitForStdout("Flags [P.]")
            try await run.interrupt(expecting: 0)
            try run.expectStdout(contains: ".\(server.port): Flags [S]")
        },
        ReadmeRunner("sockctl capture -r session.pcap -XX -tttt") { run in
            try run.golden("live-lo-tcp4.pcap", as: "session.pcap")
            try await run.runToEnd(0)
            try run.expect(run.stdout.contains("\t0x0000:  ") && run.stdout.firstMatch(of: #/^\d{4}-\d{2}-\d{2} \d{2}:/#.anchorsMatchLineEndings()) != nil,
                           "no -tttt dates or -XX rows")
        },
        ReadmeRunner("sudo sockctl capture -i lo -w out.pcap --print udp port 5353") { run in
            let server = try await run.listen("udp://127.0.0.1:0", "--echo")
            run.replace("udp port 5353", with: "udp port \(server.port)")
            run.add("-l")
            try await run.start()
            try await run.waitForStderr("listening on lo")
            try await run.sockctl(["send", "udp://\(server.address)", "captured"])
            try await run.waitForStdout("UDP, length 8", count: 2)
            try await run.interrupt(expecting: 0)
            try run.expectFile("out.pcap")
        },
        ReadmeRunner("sockctl capture -r session.pcap --follow --framing crlf") { run in
            try await run.recordDemo("session.pcap")
            try await run.runToEnd(0)
            try run.expectStdout(contains: "\"user\": \"ann\"")
        },
        ReadmeRunner("sockctl capture -r http.pcap --follow --framing http") { run in
            try run.golden("live-app-http.pcap", as: "http.pcap")
            try await run.runToEnd(0)
            try run.expectShownOutput()
        },
        ReadmeRunner("sockctl capture -r session.pcap --json | jq .") { run in
            try run.golden("live-lo-tcp4.pcap", as: "session.pcap")
            try await run.runToEnd(0)
        },
        ReadmeRunner("sudo sockctl capture --port 6969 -c 4") { run in
            let server = try await run.listen("127.0.0.1:0", "--echo", "-k", "--framing", "crlf")
            run.replace("6969", with: "\(server.port)")
            try await run.start()
            try await run.waitForStderr("listening on")
            try await run.sockctl(["send", server.address, "--framing", "crlf", #"{"user_mid":0,"reqType":1,"version":5}"#])
            try await run.expectExit(0)
            try run.expectShownOutput(ShownOutput.Rules(numbers: .all, hexdumpBytes: true))
        },
        ReadmeRunner("sockctl capture -r tls.pcap --no-dump --decode tls tcp port 443") { run in
            try run.golden("live-app-tls.pcap", as: "tls.pcap")
            try await run.runToEnd(0)
            try run.expectShownOutput()
        },
        ReadmeRunner("sockctl capture -r session.pcap --keylog keys.log --follow") { run in
            try run.golden("../Fixtures/TLS/tls13-aes128gcm.pcap", as: "session.pcap")
            try run.golden("../Fixtures/TLS/tls13-aes128gcm.keylog", as: "keys.log")
            try await run.runToEnd(0)
            try run.expectShownOutput()
        },
        ReadmeRunner("sockctl capture -r cut.pcap --keylog keys.log --follow") { run in
            try run.golden("../Fixtures/TLS/mid-connection.pcap", as: "cut.pcap")
            try run.golden("../Fixtures/TLS/mid-connection.keylog", as: "keys.log")
            try await run.runToEnd(0)
            try run.expectShownOutput()
        },
        ReadmeRunner("sockctl capture -r ws.pcap --no-dump --decode ws") { run in
            try run.golden("live-app-websocket.pcap", as: "ws.pcap")
            try await run.runToEnd(0)
            try run.expectShownOutput()
        },
        ReadmeRunner("sockctl capture -r http11.pcap --no-dump --decode http") { run in
            try run.golden("../Fixtures/http11/http11-nginx.pcap", as: "http11.pcap")
            try await run.runToEnd(0)
            try run.expectShownOutput()
        },
        ReadmeRunner("sockctl capture -r h2.pcap --no-dump --decode http2") { run in
            try run.golden("live-app-h2.pcap", as: "h2.pcap")
            try await run.runToEnd(0)
            try run.expectShownOutput()
        },
    ]
}
