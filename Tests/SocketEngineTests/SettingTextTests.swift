import SocketEngine
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

    @Test func textWithoutSettingsIsItsWords() {
        let error = SocketEngineError(.ioError, String(repeating: "x", count: 3))
        #expect(error.text.settings.isEmpty)
        #expect(error.message == "xxx")
        #expect(SettingText("a") + "b" == "ab")
    }
}
