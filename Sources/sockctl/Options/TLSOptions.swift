import ArgumentParser
import SocketEngine
import SocketEngineTLS

/// How a client checks a TLS server (`tls://`, `wss://`): shared by connect, send, replay and
/// loadtest; it becomes the TLS library's ``TLSClientOptions`` and layer.
struct TLSOptions: ParsableArguments {
    @Flag(name: [.customShort("k"), .long], help: "Do not verify the server's certificate (said on stderr for every connection).")
    var insecure = false

    @Option(name: .long, help: ArgumentHelp("Also trust the CA certificates in this PEM file.", valueName: "pem"))
    var cafile: String?

    @Option(name: .long, help: ArgumentHelp("Send this name (SNI) and check it in the certificate, instead of the host.", valueName: "name"))
    var servername: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Also require this public key: sha256//BASE64 of its SubjectPublicKeyInfo (repeatable).", valueName: "pin"),
        transform: { try TLSClientOptions.pins(parsing: $0) }
    )
    var pin: [[[UInt8]]] = []

    @Option(name: .long, help: ArgumentHelp("Client certificate chain (PEM), for servers that ask for one; with --key.", valueName: "pem"))
    var cert: String?

    @Option(name: .long, help: ArgumentHelp("The private key (PEM) of --cert.", valueName: "pem"))
    var key: String?

    var isUsed: Bool { insecure || cafile != nil || servername != nil || !pin.isEmpty || cert != nil || key != nil }

    func validate() throws {
        _ = try clientOptions()
    }

    func clientOptions() throws -> TLSClientOptions {
        var options = TLSClientOptions()
        options.verify = !insecure
        options.caFile = cafile
        options.serverName = servername
        options.certificateFile = cert
        options.keyFile = key
        if cert != nil && key == nil { throw UsageError("--cert needs --key") }
        if key != nil && cert == nil { throw UsageError("--key needs --cert") }
        options.pins = pin.flatMap { $0 }
        return options
    }

    /// The TLS layer for `endpoint` (nil unless it is `tls://` or `wss://`); refuses TLS
    /// options given for a plain endpoint.
    func layer(for endpoint: Endpoint, diagnostics: Diagnostics? = nil) throws -> TLSLayer? {
        guard endpoint.transport == .tls || endpoint.transport == .wss else {
            if isUsed { throw UsageError("TLS options need a tls:// or wss:// endpoint") }
            return nil
        }
        do {
            return try TLSLayer(client: clientOptions())
        } catch let error as SocketEngineError {
            throw UsageError(error.message)
        }
    }
}

