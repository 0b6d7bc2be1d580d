import Histogram
import NIOCore
import SocketEngine
import Testing

@testable import LoadGen
import TestSupport

/// `--correlate` and `--label` rules: what each finds in a message, what it finds nothing in
/// (never a trap, whatever the bytes), and the one-line reasons a rule is refused.
@Suite(.hangGuard) struct MessageFieldTests {
    static func value(_ rule: String, _ message: String) throws -> String? {
        try MessageField(parsing: rule).value(in: Array(message.utf8))
    }

    static func key(_ rule: String, _ message: [UInt8]) throws -> FieldKey? {
        try MessageField(parsing: rule).key(in: message)
    }

    @Test(arguments: [
        ("json:$.id", #"{"id":7,"op":"get"}"#, "7"),
        ("json:$.id", #" { "op" : "get" , "id" : 12345 } "#, "12345"),
        ("json:$.id", #"{"id":"a-1"}"#, "a-1"),
        ("json:id", #"{"id":-1.5e3}"#, "-1.5e3"),
        ("json:$.meta.reqId", #"{"meta":{"x":[1,{"reqId":2}],"reqId":"r9"}}"#, "r9"),
        ("json:$.items[1].id", #"{"items":[{"id":1},{"id":2,"z":"]}"}]}"#, "2"),
        ("json:$[0]", #"[true,false]"#, "true"),
        ("json:$['a.b']", #"{"a":{"b":1},"a.b":"dotted"}"#, "dotted"),
        ("json:$.obj", #"{"obj":{"k":[1,2]} }"#, #"{"k":[1,2]}"#),
        // Skipped values may hold anything a string can: quotes, brackets, braces.
        ("json:$.id", #"{"pad":"}\"{[","nested":{"id":1},"id":3}"#, "3"),
        // The first of two members with one name.
        ("json:$.id", #"{"id":1,"id":2}"#, "1"),
    ] as [(String, String, String)])
    func jsonPathsFindTheirValue(rule: String, message: String, expected: String) throws {
        #expect(try Self.value(rule, message) == expected)
    }

    /// Escapes are decoded, in values and in member names: `"a\u0062"` is `ab`; a surrogate
    /// pair is one character; a lone surrogate is U+FFFD.
    @Test func escapesAreDecoded() throws {
        #expect(try Self.value("json:$.id", #"{"id":"a\n"}"#) == "0x610a", "a control character: shown in hex")
        #expect(try Self.value("json:$.id", #"{"id":"a\u0062\"q\"\\\/"}"#) == #"ab"q"\/"#)
        #expect(try Self.value("json:$.id", #"{"i\u0064":"x"}"#) == "x", "an escaped member name")
        #expect(try Self.value("json:$.id", #"{"id":"\ud83d\ude00"}"#) == "😀")
        #expect(try Self.value("json:$.id", #"{"id":"\ud83dz"}"#) == "\u{FFFD}z")
        // The same value escaped or not is the same key.
        #expect(try Self.key("json:$.id", Array(#"{"id":"ab"}"#.utf8)) == Self.key("json:$.id", Array(#"{"id":"a\u0062"}"#.utf8)))
        // A number and the same text as a string are one key: servers often echo ids as strings.
        #expect(try Self.key("json:$.id", Array(#"{"id":7}"#.utf8)) == Self.key("json:$.id", Array(#"{"id":"7"}"#.utf8)))
        #expect(try Self.key("json:$.id", Array(#"{"id":7}"#.utf8)) != Self.key("json:$.id", Array(#"{"id":7.0}"#.utf8)))
    }

    /// Nothing found: no member, null, the wrong shape, not JSON, cut short, bad escapes.
    @Test(arguments: [
        #"{"op":"get"}"#, #"{"id":null}"#, #"{"ID":1}"#, #"[{"id":1}]"#, "not json", "", "{", #"{"id""#, #"{"id":"#,
        #"{"id":"unterminated"#, #"{"id":"bad\q"}"#, #"{"id":"\u12"}"#, #"{"pad":"x,"id":1}"#, #"{"id":}"#, #"{"a":1 "id":2}"#,
        "\u{0}\u{1}\u{ff}",
    ])
    func aMessageWithoutTheValueHasNoKey(message: String) throws {
        #expect(try Self.value("json:$.id", message) == nil, "\(message)")
        _ = try Self.key("json:$.meta.id", Array(message.utf8))
        _ = try Self.key("json:$.items[3].id", Array(message.utf8))
    }

    /// Every prefix of a nested message, and every single-byte change of it: an answer or none,
    /// never a trap or a read past the end.
    @Test func everyPrefixAndMutationOfAMessageIsSafe() throws {
        let message = Array(#"{"a":[1,"x\"y",{"b":{"id":"\u00e9t\u00e9"}}],"id":42,"z":true}"#.utf8)
        let rules = try ["json:$.id", "json:$.a[2].b.id", "json:$.a[9]", "regex:\"id\":(\\d+)", "bytes:3:10"].map { try MessageField(parsing: $0) }
        #expect(rules[1].value(in: message) == "été")
        for length in 0...message.count {
            for rule in rules { _ = rule.key(in: Array(message.prefix(length))) }
        }
        for index in message.indices {
            for byte: UInt8 in [0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x2C, 0x3A, 0x00, 0xFF] {
                var mutated = message
                mutated[index] = byte
                for rule in rules { _ = rule.key(in: mutated) }
            }
        }
    }

    @Test func regexTakesTheFirstGroupOfTheFirstMatch() throws {
        #expect(try Self.value(#"regex:id=(\d+)"#, "GET id=42 id=43") == "42")
        #expect(try Self.value(#"regex:^(\w+) (\d+)$"#, "reply 9") == "reply")
        #expect(try Self.value(#"regex:id=(\d+)"#, "no id here") == nil)
        #expect(try Self.value(#"regex:id=(\d+)?x"#, "id=x") == nil, "the group took no part")
        #expect(try Self.key(#"regex:id=(\d+)"#, [0xFF, 0xFE] + Array("id=5".utf8)) == FieldKey(Array("5".utf8)))
    }

    @Test func bytesTakeASliceOrNothing() throws {
        let message: [UInt8] = [0, 0, 0, 9, 0xDE, 0xAD, 0xBE, 0xEF, 0x41]
        #expect(try Self.key("bytes:4:4", message) == FieldKey([0xDE, 0xAD, 0xBE, 0xEF]))
        #expect(try MessageField(parsing: "bytes:4:4").value(in: message) == "0xdeadbeef")
        #expect(try MessageField(parsing: "bytes:8:1").value(in: message) == "A")
        #expect(try Self.key("bytes:5:5", message) == nil, "one byte past the end")
        #expect(try Self.key("bytes:9:1", message) == nil)
        #expect(try Self.key("bytes:1048576:1048576", message) == nil)
        #expect(try Self.key("bytes:0:1", []) == nil)
    }

    /// Keys of up to 16 bytes are the bytes themselves; longer ones are hashed, and still tell
    /// apart values that differ in one byte.
    @Test func keysTellValuesApart() {
        #expect(FieldKey(Array("1234567890abcdef".utf8)) != FieldKey(Array("1234567890abcdeg".utf8)))
        #expect(FieldKey([0]) != FieldKey([0, 0]), "the length is part of the key")
        #expect(FieldKey([]) != FieldKey([0]))
        let long = Array("request-0000000000000000000001".utf8)
        var other = long
        other[other.count - 1] = UInt8(ascii: "2")
        #expect(FieldKey(long) == FieldKey(long))
        #expect(FieldKey(long) != FieldKey(other))
        var keys = Set<FieldKey>()
        for number in 0..<100_000 { keys.insert(FieldKey(Array("req-\(number)-with-a-long-tail".utf8))) }
        #expect(keys.count == 100_000)
    }

    @Test(arguments: [
        ("id", "--correlate 'id': no kind (expected json:PATH, regex:RE or bytes:OFFSET:LENGTH, e.g. json:$.id)"),
        ("xml:/a", "--correlate 'xml:/a': unknown kind 'xml'"),
        ("json:", "--correlate json:: the path is empty"),
        ("json:$.", "json:$.: a '.' is not followed by a name"),
        ("json:$.a[", "json:$.a[: a '[' is not closed"),
        ("json:$.a[x]", "'[x]' is neither an index from 0 to 1000000 nor a quoted name"),
        ("json:$.a[-1]", "'[-1]' is neither an index"),
        ("json:$.a['b]", "a quoted name in [...] is not closed"),
        ("json:$a", "unexpected 'a'"),
        ("regex:(", "--correlate regex:(: not a regular expression"),
        ("regex:id=\\d+", "--correlate regex:id=\\d+: it has no capture group; the value is the first group's match, e.g. regex:id=(\\d+)"),
        ("bytes:4", "--correlate bytes:4: give OFFSET:LENGTH"),
        ("bytes:4:0", "give OFFSET:LENGTH, an offset from 0 and a length from 1"),
        ("bytes:-1:4", "give OFFSET:LENGTH"),
        ("bytes:0:9999999", "each at most 1048576"),
    ] as [(String, String)])
    func badRulesAreRefusedInOneLine(text: String, message: String) {
        let error = #expect(throws: LoadGenError.self) { try MessageField(parsing: text) }
        #expect(error?.code == .invalidPlan)
        #expect(error?.isUsageError == true)
        #expect(error?.flagged.contains(message) == true, "\(error?.flagged ?? "")")
        #expect(error?.flagged.contains("\n") == false)
    }

    @Test func theFlagIsNamedInTheReason() {
        let error = #expect(throws: LoadGenError.self) { try MessageField(parsing: "json:$.", option: .label) }
        #expect(error?.flagged.hasPrefix("invalid --label json:$.") == true, "\(error?.flagged ?? "")")
    }
}

/// The open requests of one connection: answered by key in any order, the oldest unanswered
/// always first, counts exact.
@Suite(.hangGuard) struct OpenRequestsTests {
    static func request(_ sent: Int64) -> OpenRequests.Request {
        OpenRequests.Request(due: sent, sent: sent, measured: true, label: -1)
    }

    @Test func repliesAnswerTheirOwnRequestInAnyOrder() {
        var open = OpenRequests()
        for number in 1...4 { open.append(Self.request(Int64(number)), key: FieldKey(Array("\(number)".utf8))) }
        #expect(open.count == 4)
        #expect(open.answer(key: FieldKey(Array("3".utf8)))?.sent == 3)
        #expect(open.answer(key: FieldKey(Array("3".utf8))) == nil, "answered once")
        #expect(open.oldest?.sent == 1)
        #expect(open.answer(key: FieldKey(Array("1".utf8)))?.sent == 1)
        #expect(open.oldest?.sent == 2, "the answered ones before it are gone")
        #expect(open.count == 2)
        #expect(open.answer(key: FieldKey(Array("9".utf8))) == nil)
        #expect(open.popOldest()?.sent == 2)
        #expect(open.oldest?.sent == 4, "3 was answered")
        #expect(open.answer(key: FieldKey(Array("2".utf8))) == nil, "2 timed out: its key is forgotten")
        #expect(open.answer(key: FieldKey(Array("4".utf8)))?.sent == 4)
        #expect(open.isEmpty && open.oldest == nil)
    }

    @Test func aRepeatedKeyDisplacesTheOlderRequest() {
        var open = OpenRequests()
        let key = FieldKey(Array("same".utf8))
        #expect(open.append(Self.request(1), key: key) == nil)
        #expect(open.append(Self.request(2), key: key)?.sent == 1)
        #expect(open.count == 1)
        #expect(open.answer(key: key)?.sent == 2)
        #expect(open.isEmpty)
    }

    @Test func removeAllHandsBackTheUnansweredOnes() {
        var open = OpenRequests()
        for number in 1...5 { open.append(Self.request(Int64(number)), key: FieldKey(Array("\(number)".utf8))) }
        _ = open.answer(key: FieldKey(Array("2".utf8)))
        var left: [Int64] = []
        open.removeAll { left.append($0.sent) }
        #expect(left == [1, 3, 4, 5])
        #expect(open.isEmpty)
        #expect(open.answer(key: FieldKey(Array("4".utf8))) == nil)
    }
}

/// The per-connection key table: the same answers as a `Dictionary` over any mix of inserts,
/// replacements, lookups and removals, through growth and wrap-around.
@Suite(.hangGuard) struct KeyIndexTests {
    @Test func agreesWithADictionary() {
        var index = KeyIndex()
        #expect(index[FieldKey([1])] == nil && index.removeValue(forKey: FieldKey([1])) == nil, "empty, before any slot exists")
        var oracle: [FieldKey: Int] = [:]
        var generator = SystemRandomNumberGenerator()
        for step in 0..<50_000 {
            // Few distinct keys, so that replacements, misses and long probe runs all happen.
            let key = FieldKey(Array("k\(Int.random(in: 0..<300, using: &generator))".utf8))
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: #expect(index.updateValue(step, forKey: key) == oracle.updateValue(step, forKey: key))
            case 1: #expect(index.removeValue(forKey: key) == oracle.removeValue(forKey: key))
            default: #expect(index[key] == oracle[key])
            }
            #expect(index.count == oracle.count)
        }
        for (key, value) in oracle { #expect(index[key] == value) }
        index.removeAll()
        #expect(index.count == 0 && oracle.keys.allSatisfy { index[$0] == nil })
    }
}

/// `unmatched<…` thresholds, and what a report without `--correlate` says to them.
@Suite(.hangGuard) struct UnmatchedThresholdTests {
    @Test func unmatchedIsACountOrAShareOfReplies() throws {
        var report = try ThresholdTests.report(p99: 100, sent: 1000)
        report.messages.unmatched = 10
        #expect(try Threshold(parsing: "unmatched<11").evaluate(report).passed)
        #expect(try !Threshold(parsing: "unmatched<10").evaluate(report).passed)
        #expect(try Threshold(parsing: "unmatched<1%").evaluate(report).passed, "10 of 1,010 replies")
        #expect(try !Threshold(parsing: "unmatched<0.9%").evaluate(report).passed)
        #expect(try Threshold(parsing: "unmatched<=0.99%").evaluate(report).measured == 10.0 / 1010)
    }

    @Test func withoutCorrelationNothingWasMeasured() throws {
        let report = try ThresholdTests.report(p99: 100)
        let result = try Threshold(parsing: "unmatched<1").evaluate(report)
        #expect(!result.passed && result.measured == nil)
    }

    @Test func mergeAddsUnmatchedAndLabels() throws {
        func part(unmatched: Int, labels: [(String, Int, UInt64)]) throws -> LoadReport {
            var report = try ThresholdTests.report(p99: 100)
            report.messages.unmatched = unmatched
            var table = LabelTable()
            for (name, sent, nanos) in labels {
                let index = table.index(named: name)
                for _ in 0..<sent {
                    table.countSent(index)
                    table.countReceived(index, correctedNanos: nanos)
                }
            }
            report.labels = LoadReport.Labels(rule: "json:$.op", table: table)
            return report
        }
        let merged = try LoadReport.merge([
            try part(unmatched: 3, labels: [("get", 10, 1_000_000), ("put", 2, 5_000_000)]),
            try part(unmatched: 4, labels: [("get", 5, 3_000_000), ("del", 1, 9_000_000)]),
        ])
        #expect(merged.messages.unmatched == 7)
        let values = try #require(merged.labels?.values)
        #expect(values.map(\.label) == ["get", "put", "del"])
        #expect(values.map(\.sent) == [15, 2, 1])
        #expect(values[0].latency?.count == 15)
        #expect((values[0].latency?.max ?? 0) >= 3000 && (values[0].latency?.p50 ?? 0) < 1100)
        #expect(merged.text.contains("labels      by json:$.op, corrected latency:"))
    }

    /// More values than the table keeps: the rest go to `(other)`, counted, once.
    @Test func labelsPastTheLimitAreCountedAsOther() {
        var table = LabelTable()
        for number in 0..<(LabelTable.maximumLabels + 50) {
            table.countSent(table.index(for: FieldKey(Array("op\(number)".utf8))) { "op\(number)" })
        }
        table.countSent(table.index(for: nil) { nil })
        #expect(table.overflowed)
        #expect(table.entries.count == LabelTable.maximumLabels + 2)
        #expect(table.entries.first { $0.name == LabelTable.otherName }?.sent == 50)
        #expect(table.entries.first { $0.name == LabelTable.noneName }?.sent == 1)
        #expect(table.entries.reduce(0) { $0 + $1.sent } == LabelTable.maximumLabels + 51)
    }
}
