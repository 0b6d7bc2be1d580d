import NIOCore
import TestSupport
import Testing
@testable import SocketEngine

/// The fault specifications of `proxy --fault` and the control socket's commands: what parses,
/// what it shows as, and the one line a mistake gets.
@Suite(.hangGuard)
struct RelayFaultSpecTests {
    // MARK: Reading and showing faults

    /// Every kind, written the way it is shown, reads back as itself and shows the same again.
    @Test(arguments: [
        "latency=50ms", "latency=100ms,jitter=20ms", "latency=1.5s,dir=up", "latency=1m",
        "bandwidth=64KiB/s", "bandwidth=1000/s",
        "slice=16,delay=10ms", "slice=1KiB,delay=0s",
        "stall=5s,every=64KiB", "stall=5s,every=100msg", "stall=1s,every=30s",
        "timeout", "timeout=10s",
        "reset-after=10KiB", "reset-after=5msg", "reset-after=3s",
        "limit=1MiB", "limit=10",
        "drop=2%", "drop=0.5%", "drop=100%", "drop=7%", "drop=29%", "drop=1.1%", "drop=0.00001%",
        "drop=14%,p=57%",
        "close-after-messages=10",
        "drop=2%,dir=down,p=50%", "latency=50ms,p=0%",
    ])
    func aSpecificationShowsAsItIsWritten(spec: String) throws {
        let fault = try RelayFault(parsing: spec)
        #expect(fault.description == spec)
        #expect(try RelayFault(parsing: fault.description) == fault)
    }

    /// Faults made in code show as a specification that reads back to the same fault.
    @Test(arguments: [
        RelayFault(.latency(.milliseconds(1500), jitter: .microseconds(250)), directions: [.down]),
        RelayFault(.bandwidth(bytesPerSecond: 1536)),
        RelayFault(.slice(size: 3, delay: .milliseconds(7))),
        RelayFault(.stall(.seconds(90), every: .time(.seconds(120)))),
        RelayFault(.stall(.seconds(1), every: .bytes(3 << 20))),
        RelayFault(.timeout(closeAfter: nil), probability: 0.25),
        RelayFault(.timeout(closeAfter: .seconds(60))),
        RelayFault(.resetAfter(.time(.seconds(120)))),
        RelayFault(.resetAfter(.time(.seconds(3600)))),
        RelayFault(.resetAfter(.messages(7))),
        RelayFault(.limit(bytes: 1 << 30)),
        RelayFault(.drop(share: 0.125), probability: 0.5),
        RelayFault(.closeAfterMessages(1), directions: [.up]),
    ])
    func aFaultReadsBackFromItsDescription(fault: RelayFault) throws {
        let again = try RelayFault(parsing: fault.description)
        #expect(again == fault, "\(fault) read back as \(again)")
        #expect(again.description == fault.description)
    }

    /// What the settings mean: the directions, the share of clients, and the defaults.
    @Test func settingsReadAsDocumented() throws {
        #expect(try RelayFault(parsing: "latency=50ms") == RelayFault(.latency(.milliseconds(50), jitter: .zero)))
        #expect(try RelayFault(parsing: "latency=50ms,dir=both").directions == [.up, .down])
        #expect(try RelayFault(parsing: "latency=50ms,direction=up").directions == [.up])
        #expect(try RelayFault(parsing: " drop=2% , dir=down ") == RelayFault(.drop(share: 0.02), directions: [.down]))
        #expect(try RelayFault(parsing: "drop=0.02").kind == .drop(share: 0.02))
        #expect(try RelayFault(parsing: "limit=1MiB,p=25%").probability == 0.25)
        #expect(try RelayFault(parsing: "timeout").kind == .timeout(closeAfter: nil))
        #expect(try RelayFault(parsing: "bandwidth=64k").kind == .bandwidth(bytesPerSecond: 65536))
        #expect(try RelayFault(parsing: "stall=5s,every=1500").kind == .stall(.seconds(5), every: .bytes(1500)))
        #expect(try RelayFault(parsing: "reset-after=250ms").kind == .resetAfter(.time(.milliseconds(250))))
        #expect(try RelayFault(parsing: "slice=16").kind == .slice(size: 16, delay: .zero))
    }

    /// A mistake is one line that starts with the specification and names what is wrong.
    @Test(arguments: [
        ("", "empty (expected e.g. latency=50ms or drop=2%)"),
        ("explode=1", "unknown kind 'explode' (expected one of latency, bandwidth, slice, stall, timeout, reset-after, limit, drop or close-after-messages)"),
        ("latency", "latency needs a value (latency=…)"),
        ("latency=fast", "latency 'fast' is not a duration (e.g. 50ms, 2s)"),
        ("latency=50ms,jitter=lots", "jitter 'lots' is not a duration (e.g. 50ms, 2s)"),
        ("bandwidth=lots/s", "bandwidth 'lots' is not a size (e.g. 1500, 64KiB)"),
        ("slice=0", "slice '0' is not a size (e.g. 1500, 64KiB)"),
        ("limit=-5", "limit '-5' is not a size (e.g. 1500, 64KiB)"),
        ("stall=5s", "stall needs every=SIZE, every=Nmsg or every=DURATION"),
        ("stall=5s,every=often", "'often' is not a size, a message count or a duration (e.g. 64KiB, 100msg, 30s)"),
        ("reset-after=0s", "'0s' must be longer than zero"),
        ("reset-after=xmsg", "'xmsg' is not a message count (e.g. 100msg)"),
        ("drop=lots", "drop 'lots' is not a share (e.g. 2% or 0.02)"),
        ("drop=150%", "drop '150%' is not between 0 and 100%"),
        ("close-after-messages=0", "close-after-messages '0' is not a positive count"),
        ("latency=50ms,colour=red", "'colour' is not a setting of latency"),
        ("drop=2%,jitter=5ms", "'jitter' is not a setting of drop"),
        ("latency=50ms,dir=sideways", "dir 'sideways' is not up, down or both"),
        ("latency=50ms,p=150%", "p '150%' is not between 0 and 100%"),
        ("latency=50ms,p=-1", "p '-1' is not a share (e.g. 2% or 0.02)"),
        ("latency=50ms,dir=up,dir=down", "'dir' given twice"),
        ("latency=50ms,,dir=up", "'' is not key=value"),
        ("latency=50ms,dir", "'dir' is not key=value"),
    ])
    func aBadSpecificationIsOneLineNamingTheProblem(spec: String, problem: String) {
        do {
            let fault = try RelayFault(parsing: spec)
            Issue.record("'\(spec)' was read as \(fault)")
        } catch {
            #expect(error.code == .invalidConfiguration)
            #expect(error.message == "invalid fault '\(spec)': \(problem)")
            #expect(!error.message.contains("\n"))
            #expect(error.isUsageError)
        }
    }

    // MARK: Control commands

    /// add, list, remove and clear answer one line each; numbers are never reused.
    @Test func controlCommandsChangeTheSetAndAnswerOneLineEach() {
        let faults = RelayFaultSet()
        #expect(RelayControl.execute("list", on: faults) == "ok 0 faults")
        #expect(RelayControl.execute("add latency=50ms", on: faults) == "ok 1 latency=50ms")
        #expect(RelayControl.execute("add  drop=2% , dir=up ", on: faults) == "ok 2 drop=2%,dir=up")
        #expect(RelayControl.execute("list", on: faults) == "ok 2 faults: 1 latency=50ms; 2 drop=2%,dir=up")
        #expect(RelayControl.execute("remove 1", on: faults) == "ok removed 1")
        #expect(RelayControl.execute("list", on: faults) == "ok 1 fault: 2 drop=2%,dir=up")
        #expect(RelayControl.execute("add timeout", on: faults) == "ok 3 timeout")
        #expect(RelayControl.execute("clear", on: faults) == "ok removed 2 faults")
        #expect(RelayControl.execute("list", on: faults) == "ok 0 faults")
        #expect(RelayControl.execute("add limit=1MiB", on: faults) == "ok 4 limit=1MiB")
        #expect(faults.entries.map(\.id) == [4])
        #expect(faults.entries.map(\.fault) == [RelayFault(.limit(bytes: 1 << 20))])
    }

    /// A command that cannot be done gets `error: …` and leaves the faults exactly as they were.
    @Test(arguments: [
        ("", "error: empty command (expected add, remove, list or clear)"),
        ("   ", "error: empty command (expected add, remove, list or clear)"),
        ("add", "error: add needs a fault, e.g. add latency=50ms"),
        ("add explode=1", "error: invalid fault 'explode=1': unknown kind 'explode' (expected one of latency, bandwidth, slice, stall, timeout, reset-after, limit, drop or close-after-messages)"),
        ("add latency=50ms,dir=sideways", "error: invalid fault 'latency=50ms,dir=sideways': dir 'sideways' is not up, down or both"),
        ("add drop=2%,p=150%", "error: invalid fault 'drop=2%,p=150%': p '150%' is not between 0 and 100%"),
        ("remove", "error: remove needs a fault number, e.g. remove 2"),
        ("remove two", "error: remove needs a fault number, e.g. remove 2"),
        ("remove 0", "error: remove needs a fault number, e.g. remove 2"),
        ("remove 99", "error: no fault 99 (list shows them)"),
        ("list all", "error: list takes no argument"),
        ("clear now", "error: clear takes no argument"),
        ("frobnicate 3", "error: unknown command 'frobnicate' (expected add, remove, list or clear)"),
        ("ADD latency=5ms", "error: unknown command 'ADD' (expected add, remove, list or clear)"),
    ])
    func aBadCommandIsAnsweredWithAnErrorAndChangesNothing(command: String, answer: String) throws {
        let faults = RelayFaultSet([try RelayFault(parsing: "latency=50ms"), try RelayFault(parsing: "drop=2%")])
        let before = faults.snapshot
        #expect(RelayControl.execute(command, on: faults) == answer)
        let after = faults.snapshot
        #expect(after.entries == before.entries && after.version == before.version)
        #expect(RelayControl.execute("add limit=1", on: faults) == "ok 3 limit=1", "a failed command used up a number")
    }

    /// The control socket itself: one answer line per command line, in order, over a real Unix
    /// socket, acting on the set the relay uses.
    @Test func theControlSocketAnswersEachLine() async throws {
        let path = "/tmp/sockctl-relay-control-\(UInt32.random(in: 0...UInt32.max)).sock"
        let faults = RelayFaultSet()
        let control = try await RelayControl.bind(path: path, faults: faults)
        let serving = Task { await control.run() }
        let client = try await connect("unix:\(path)")
        try await client.write(ByteBuffer(string: "add latency=50ms,dir=up\nadd nonsense\r\nlist\n"))
        var answers: [String] = []
        for _ in 0..<3 { answers.append(string(try await client.read(.frame(.line, maxFrameSize: 1000))) ?? "") }
        #expect(answers == [
            "ok 1 latency=50ms,dir=up",
            "error: invalid fault 'nonsense': unknown kind 'nonsense' (expected one of latency, bandwidth, slice, stall, timeout, reset-after, limit, drop or close-after-messages)",
            "ok 1 fault: 1 latency=50ms,dir=up",
        ])
        #expect(faults.entries.map(\.fault) == [RelayFault(.latency(.milliseconds(50), jitter: .zero), directions: [.up])])
        try await client.closeWrite()
        #expect(try await client.read() == nil)
        await client.close()
        await control.close()
        await finished(serving)
    }
}
