import ArgumentParser
import SocketEngine

/// What an interactive client takes besides its own flags: the transport, the framing and what
/// it shows (`-v`, `--hexdump`). Shared by connect, send and replay.
struct ClientOptions: ParsableArguments {
    @OptionGroup var transport: TransportOptions
    @OptionGroup(title: "Framing") var framing: FramingOptions
    @OptionGroup(title: "Observability") var observability: ObservabilityOptions

    var verbose: Bool { observability.verbose }

    /// ``TransportOptions/connectOptions(for:)`` with the `--hexdump` tap, and with `diagnostics`
    /// the `-v` lines of the WebSocket's pings and closes and the TLS key log opened.
    func connectOptions(for endpoint: Endpoint, diagnostics: Diagnostics? = nil) throws -> ConnectOptions {
        var options = try transport.connectOptions(for: endpoint, diagnostics: diagnostics)
        options.tap = observability.tap
        if let diagnostics, diagnostics.verbose, endpoint.transport.isWebSocket {
            options.webSocket.onEvent = { diagnostics.log($0.logLine) }
        }
        return options
    }
}
