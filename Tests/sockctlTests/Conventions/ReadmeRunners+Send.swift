import Foundation

/// README: "send — curl for sockets".
extension ReadmeRunners {
    static let send: [ReadmeRunner] = [
        ReadmeRunner(#"sockctl send 127.0.0.1:7000 --framing crlf '{"op":"ping"}'"#) { run in
            let server = try await run.listen("127.0.0.1:0", "--echo", "--framing", "crlf")
            run.replace("127.0.0.1:7000", with: server.address)
            try await run.runToEnd(0)
            try run.expect(run.stdout == "{\"op\":\"ping\"}\n", "it printed '\(run.stdout)', not the response")
        },
        // request.bin is one request; the server answers each request with two length-prefixed frames.
        ReadmeRunner("sockctl send 127.0.0.1:7000 --framing length:4 --file request.bin --responses 2 --timeout 2s") { run in
            try run.write("request.bin", bytes: Array("GET /user/1".utf8))
            try run.write("two-frames.bin", bytes: [0, 0, 0, 4] + Array("head".utf8) + [0, 0, 0, 4] + Array("body".utf8))
            let server = try await run.listen("127.0.0.1:0", "--respond", "two-frames.bin")
            run.replace("127.0.0.1:7000", with: server.address)
            try await run.runToEnd(0)
            try run.expect(run.stdout == "head\nbody\n", "it printed '\(run.stdout)', not the two responses")
        },
        ReadmeRunner(#"printf 'GET / HTTP/1.0\r\n\r\n' | sockctl send example.com:80"#) { run in
            try run.write("index.html", "hello from a web server\n")
            let server = try await run.httpServer()
            run.replace("example.com:80", with: server.address)
            try await run.runToEnd(0)
            try run.expectStdout(contains: "HTTP/1.0 200 OK")
            try run.expectStdout(contains: "hello from a web server")
        },
        ReadmeRunner(#"sockctl send udp://127.0.0.1:5353 -e 'ping\n' --json"#) { run in
            let server = try await run.listen("udp://127.0.0.1:0", "--echo")
            run.replace("127.0.0.1:5353", with: server.address)
            try await run.runToEnd(0)
            let json = try run.json()
            try run.expect(json["ok"] as? Bool == true && json["bytes_sent"] as? Int == 5, "not ok, or not 5 bytes sent: \(json)")
            try run.expect((json["responses"] as? [[String: Any]])?.first?["bytes"] as? Int == 5, "no 5-byte echo: \(json)")
        },
        // The out-of-order server answers both requests and pushes one message of its own.
        ReadmeRunner(#"sockctl send 127.0.0.1:7000 --framing line '{"id":1,"op":"get"}' '{"id":2,"op":"put"}' --correlate 'json:$.id' --json"#) { run in
            let server = try await run.outOfOrderServer(["--batch", "2", "--push", "1", "--step-ms", "0"])
            run.replace("127.0.0.1:7000", with: server.address)
            try await run.runToEnd(0)
            try run.expectShownOutput(ShownOutput.Rules(joinLines: true))
        },
    ]
}
