import ArgumentParser
import SocketEngine
import SocketEngineTLS

/// How `listen tls://` (and `wss://`) presents itself.
struct ListenTLSOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The certificate chain (PEM) this side presents: to clients, for tls:// and wss://; with --key.", valueName: "pem"))
    var cert: String?

    @Option(name: .long, help: ArgumentHelp("The private key (PEM) of --cert.", valueName: "pem"))
    var key: String?

    @Option(name: .long, help: ArgumentHelp("Require client certificates signed by a CA in this PEM file.", valueName: "pem"))
    var clientCA: String?

    @OptionGroup var keyLog: KeyLogOptions

    /// The server TLS layer for `endpoint` (nil unless it is secured), its secrets going to
    /// `keyLog` (opened by the caller: ``KeyLogOptions/writer(secured:diagnostics:environment:)``).
    func layer(for endpoint: Endpoint, keyLog writer: TLSKeyLogWriter? = nil) throws -> TLSLayer? {
        guard endpoint.transport.isSecured else {
            if cert != nil || key != nil || clientCA != nil { throw UsageError("--cert, --key and --client-ca need a tls://, wss:// or https:// endpoint") }
            return nil
        }
        guard let cert, let key else {
            throw UsageError("listening on \(endpoint.transport.rawValue):// needs --cert and --key")
        }
        var options = TLSServerOptions(certificateFile: cert, keyFile: key)
        options.clientCAFile = clientCA
        options.keyLog = writer
        do {
            return try TLSLayer(server: options) { $0.option() }
        } catch {
            throw UsageError(OptionNames.render(error.text))
        }
    }
}
