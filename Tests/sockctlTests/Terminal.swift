import Foundation
import TestSupport

import Glibc

/// sockctl on a terminal of its own: stdin, stdout and stderr are a pseudo-terminal
/// (`TerminalPeers/pty_run.py`, Python's `pty`), and Ctrl-C is a key typed on it, so the
/// terminal's line discipline — not `kill` — sends SIGINT, as when a user presses it. The
/// child's stdout is everything the terminal showed (sockctl's stdout and stderr, with CRLF line
/// ends and the echo of what was typed); its exit status is sockctl's (128 + N for signal N).
enum Terminal {
    static let script = packageRoot.appendingPathComponent("Tests/sockctlTests/TerminalPeers/pty_run.py").path

    /// Starts `sockctl ARGUMENTS` on a terminal of its own.
    static func sockctl(_ arguments: [String], name: String) async throws -> Child {
        try await Child(try tool("python3"), [script, try sockctlPath()] + arguments, stdin: .pipe, name: name)
    }
}

extension Child {
    /// Types Ctrl-C on the terminal of a ``Terminal`` child.
    func pressCtrlC() throws {
        try send([0x03])
    }

    /// The port in the first `listening on 127.0.0.1:PORT` line of `text`.
    static func port(listeningIn text: String) throws -> Int {
        guard let range = text.range(of: "listening on 127.0.0.1:") else { throw HarnessError("no 'listening on 127.0.0.1:' in: \(text)") }
        guard let port = Int(text[range.upperBound...].prefix { $0.isNumber }) else { throw HarnessError("no port in: \(text)") }
        return port
    }
}

/// The JSON object in the file at `path` (a `--json` report), or a failure naming what is wrong.
func jsonObject(atPath path: String) throws -> [String: Any] {
    guard let data = FileManager.default.contents(atPath: path) else { throw HarnessError("\(path) was not written") }
    guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw HarnessError("\(path) is not a JSON object") }
    return object
}

/// The number at a `/`-separated path in a JSON object (`messages/sent`), or -1.
func number(_ json: [String: Any], _ path: String) -> Int {
    var value: Any? = json
    for key in path.split(separator: "/") { value = (value as? [String: Any])?[String(key)] }
    return (value as? NSNumber)?.intValue ?? -1
}

/// A line-framed echo session recorded by `listen --record` (the client sent `one` and `two`
/// and got them back): the pcap's path, in `scratch`.
func recordedEchoSession(in scratch: Scratch) async throws -> String {
    let capture = scratch.path("session.pcap")
    let recorder = try await Child(try sockctlPath(), ["listen", "127.0.0.1:0", "--echo", "--framing", "line", "--record", capture], name: "recorder")
    let port = try await recorder.listeningPort()
    let sent = try await run(try sockctlPath(), ["send", "127.0.0.1:\(port)", "--framing", "line", "one", "two", "--responses", "2"])
    guard sent.status == 0 else { throw HarnessError("recording the session: send exited \(sent.status): \(sent.stderr)") }
    // Without -k the listener ends with its first client, and the file is complete then.
    guard try await recorder.wait() == 0 else { throw HarnessError("the recording listener failed: \(recorder.stderr)") }
    return capture
}
