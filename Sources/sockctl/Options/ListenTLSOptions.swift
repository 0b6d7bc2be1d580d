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

    func layer(for endpoint: Endpoint) throws -> TLSLayer? {
        guard endpoint.transport.isSecured else {
            if cert != nil || key != nil || clientCA != nil { throw UsageError("--cert, --key and --client-ca need a tls://, wss:// or https:// endpoint") }
            return nil
        }
        guard let cert, let key else {
            throw UsageError("listening on \(endpoint.transport.rawValue):// needs --cert and --key")
        }
        var options = TLSServerOptions(certificateFile: cert, keyFile: key)
        options.clientCAFile = clientCA
        do {
            return try TLSLayer(server: options) { $0.option() }
        } catch {
            throw UsageError(OptionNames.render(error.text))
        }
    }
}
