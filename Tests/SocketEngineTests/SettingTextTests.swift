@testable import SocketEngine
import Testing

/// Text that names settings by key: rendered as the caller words settings, plain names otherwise;
/// the keys survive being put into another text (an error wrapped in a larger message).
@Suite("setting text", .hangGuard)
struct SettingTextTests {
    @Test func settingsAreWordedAsTheCallerSays() {
        let limit = 3
        let text: SettingText = "\(.maxClients) \(limit) reached"
        #expect(text.settings == [.maxClients])
        #expect(text.rendered { "<\($0.rawValue)>" } == "<max-clients> 3 reached")
        #expect(text.description == "the client limit 3 reached")
    }

    @Test func aTextInsideAnotherKeepsItsSettings() {
        let inner = SocketEngineError(.invalidConfiguration, "\(.correlate) finds no key in message 1")
        let outer: SettingText = "stream 2: \(inner.text)"
        #expect(outer.settings == [.correlate])
        #expect(outer.rendered { "--" + $0.rawValue } == "stream 2: --correlate finds no key in message 1")
        #expect(inner.message == "the correlation key finds no key in message 1")
    }

    /// A literal that interpolates a text (not a key written in place) is a text too: with a
    /// `String` overload beside it the type checker took the literal for a `String`, and the
    /// error carried the inner text's plain words ("trust it with the CA file").
    @Test func anErrorBuiltAroundATextKeepsItsSettings() {
        let reason: SettingText = "skip verification with \(.insecure)"
        let error = SocketEngineError(.tlsFailed, "TLS handshake failed: \(reason)")
        #expect(error.text.settings == [.insecure])
        #expect(error.text.rendered { "--" + $0.rawValue } == "TLS handshake failed: skip verification with --insecure")
        let key = SettingKey.framing
        #expect(SocketEngineError(.invalidFraming, "see \(key)").text.settings == [.framing])
    }

    /// What the engine makes of a TLS layer's refusal keeps its settings: a listener's refusal
    /// line, a failed exchange's JSON, a reconnecting client that gives up.
    @Test func aRefusalKeepsItsSettingsThroughTheEngine() throws {
        let refusal = SocketEngineError(.tlsFailed, "TLS handshake failed: skip verification with \(.insecure)")
        let flags: (SettingKey) -> String = { "--" + $0.rawValue }
        #expect(Listener.handshakeFailure(refusal).rendered(flags) == "TLS handshake failed: skip verification with --insecure")
        let plain = SocketEngineError(.tlsFailed, "the peer sent \(.insecure)")
        #expect(Listener.handshakeFailure(plain).rendered(flags) == "TLS handshake failed: the peer sent --insecure")
        #expect(SocketEngineError.classify(refusal).1.settings == [.insecure])
        var result = ExchangeResult()
        result.error = refusal
        let json = result.json(configuration: ExchangeConfiguration(endpoint: try Endpoint(parsing: "tls://127.0.0.1:1")), naming: flags).rendered
        #expect(json.contains(#""message":"TLS handshake failed: skip verification with --insecure""#), "\(json)")
    }

    @Test func textWithoutSettingsIsItsWords() {
        let error = SocketEngineError(.ioError, SettingText(String(repeating: "x", count: 3)))
        #expect(error.text.settings.isEmpty)
        #expect(error.message == "xxx")
        #expect(SettingText("a") + "b" == "ab")
    }
}
