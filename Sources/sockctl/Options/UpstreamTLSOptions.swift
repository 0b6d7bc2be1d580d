import ArgumentParser
import SocketEngine
import SocketEngineTLS

/// How `proxy` checks a `tls://` or `wss://` upstream: the client TLS options of connect, under
/// `--upstream-` names (the plain `--cert`/`--key` present the proxy's own certificate to its
/// clients). Verification is on unless `--upstream-insecure`.
struct UpstreamTLSOptions: ParsableArguments {
    @Flag(name: .customLong("upstream-insecure"), help: "Do not verify the upstream server's certificate.")
    var insecure = false

    @Option(name: .customLong("upstream-cafile"), help: ArgumentHelp("Also trust the CA certificates in this PEM file for the upstream.", valueName: "pem"))
    var cafile: String?

    @Option(name: .customLong("upstream-servername"), help: ArgumentHelp("Send this name (SNI) to the upstream and check it in its certificate.", valueName: "name"))
    var servername: String?

    @Option(name: .customLong("upstream-cert"), help: ArgumentHelp("Client certificate chain (PEM) for an upstream that asks for one; with --upstream-key.", valueName: "pem"))
    var cert: String?

    @Option(name: .customLong("upstream-key"), help: ArgumentHelp("The private key (PEM) of --upstream-cert.", valueName: "pem"))
    var key: String?

    var isUsed: Bool { insecure || cafile != nil || servername != nil || cert != nil || key != nil }

    /// The TLS layer for a `tls://` or `wss://` upstream (nil for a plain one), its secrets going
    /// to `keyLog` (proxy's one key log, shared with the client side).
    func layer(for endpoint: Endpoint, keyLog: TLSKeyLogWriter? = nil) throws -> TLSLayer? {
        guard endpoint.transport.isSecured else {
            if isUsed { throw UsageError("--upstream-* TLS options need a tls://, wss:// or https:// upstream") }
            return nil
        }
        var options = try TLSOptions.clientOptions(
            insecure: insecure, cafile: cafile, servername: servername, cert: cert, key: key, prefix: "--upstream-")
        options.keyLog = keyLog
        return try TLSOptions.layer(options, prefix: "--upstream-")
    }
}
