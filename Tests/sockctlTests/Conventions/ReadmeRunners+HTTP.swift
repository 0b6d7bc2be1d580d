import Foundation
import TestSupport

/// README: "HTTP — http:// and https://".
extension ReadmeRunners {
    static let http: [ReadmeRunner] = [
        // A request answered from the file, then one that cannot be read (a header line without
        // a colon): the log line of each, and the summary's requests by class.
        ReadmeRunner("sockctl listen http://:8080 --respond index.html -H 'Cache-Control: no-store' -k") { run in
            try run.write("index.html", "<h1>hello</h1>\n")
            run.replace("http://:8080", with: "http://:0")
            try await run.start()
            let port = try await run.listeningPort()
            let got = try await run.sockctl(["send", "http://127.0.0.1:\(port)/api"])
            try run.expect(got.stdout == "<h1>hello</h1>\n", "the client got '\(got.stdout)'")
            try await run.waitForStderr("GET /api -> 200")
            try await run.sockctl(["send", "127.0.0.1:\(port)", "GET / HTTP/1.1\r\nNo colon here\r\n\r\n"])
            try await run.waitForStderr("-> 400")
            try await run.interrupt(expecting: 0)
            try run.expectShownOutput()
        },
        ReadmeRunner("sockctl send http://127.0.0.1:8080/api -H 'Accept: application/json' --fail -v") { run in
            try run.write("index.html", "<h1>hello</h1>\n")
            let server = try await run.listen("http://127.0.0.1:0", "--respond", "index.html", "-H", "Cache-Control: no-store", "-k")
            run.replace("127.0.0.1:8080", with: server.address)
            run.showAs(server.address, "127.0.0.1:8080")
            try await run.runToEnd(0)
            try run.expectShownOutput()
        },
    ]
}
