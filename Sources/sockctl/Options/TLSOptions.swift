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

    @Option(name: .long, help: ArgumentHelp("The certificate chain (PEM) this side presents: to a server that asks for one; with --key.", valueName: "pem"))
    var cert: String?

    @Option(name: .long, help: ArgumentHelp("The private key (PEM) of --cert.", valueName: "pem"))
    var key: String?

    @OptionGroup var keyLog: KeyLogOptions

    var isUsed: Bool { insecure || cafile != nil || servername != nil || !pin.isEmpty || cert != nil || key != nil }

    func validate() throws {
        _ = try clientOptions()
    }

    func clientOptions() throws -> TLSClientOptions {
        try Self.clientOptions(insecure: insecure, cafile: cafile, servername: servername, cert: cert, key: key, pins: pin.flatMap { $0 })
    }

    /// The client TLS options these values give; `prefix` names the flags in errors (`--cert`
    /// or `--upstream-cert`).
    static func clientOptions(
        insecure: Bool, cafile: String?, servername: String?, cert: String?, key: String?, pins: [[UInt8]] = [], prefix: String = "--"
    ) throws -> TLSClientOptions {
        if let servername, !isHostName(servername) {
            throw UsageError("invalid \(prefix)servername '\(servername)' (expected a host name such as api.example.com)")
        }
        if cert != nil && key == nil { throw UsageError("\(prefix)cert needs \(prefix)key") }
        if key != nil && cert == nil { throw UsageError("\(prefix)key needs \(prefix)cert") }
        var options = TLSClientOptions()
        options.verify = !insecure
        options.caFile = cafile
        options.serverName = servername
        options.certificateFile = cert
        options.keyFile = key
        options.pins = pins
        return options
    }

    /// A name a server certificate can carry: letters, digits, `-`, `.`, `_` and `*` (an address
    /// literal's digits, `:` and `.` too), at most 253 bytes.
    static func isHostName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 253 && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-._*:".contains($0)) }
    }

    /// The TLS layer for `options`, a bad file or key reported as a usage error naming the
    /// option (under `prefix`) that gave it.
    static func layer(_ options: TLSClientOptions, prefix: String = "--") throws -> TLSLayer {
        do {
            return try TLSLayer(client: options) { $0.option(prefix: prefix) }
        } catch {
            throw UsageError(OptionNames.render(error.text))
        }
    }

    /// The TLS layer for `endpoint` (nil unless it is `tls://`, `wss://` or `https://`); refuses TLS
    /// options given for a plain endpoint. With `diagnostics` (the run, not `validate()`), the
    /// key log (``KeyLogOptions``) is opened and every connection's secrets go to it.
    func layer(for endpoint: Endpoint, diagnostics: Diagnostics? = nil) throws -> TLSLayer? {
        guard endpoint.transport.isSecured else {
            if isUsed { throw UsageError("TLS options need a tls://, wss:// or https:// endpoint") }
            try keyLog.validate(secured: false)
            return nil
        }
        var options = try clientOptions()
        options.keyLog = try keyLog.writer(secured: true, diagnostics: diagnostics)
        return try Self.layer(options)
    }
}

