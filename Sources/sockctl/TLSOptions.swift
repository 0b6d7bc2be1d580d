import ArgumentParser
import SocketEngine
import SocketEngineTLS

/// How a client checks a TLS server (`tls://`, `wss://`): shared by connect, send and loadtest.
struct TLSOptions: ParsableArguments {
    @Flag(name: [.customShort("k"), .long], help: "Do not verify the server's certificate (said on stderr for every connection).")
    var insecure = false

    @Option(name: .long, help: ArgumentHelp("Also trust the CA certificates in this PEM file.", valueName: "pem"))
    var cafile: String?

    @Option(name: .long, help: ArgumentHelp("Send this name (SNI) and check it in the certificate, instead of the host.", valueName: "name"))
    var servername: String?

    @Option(name: .long, help: ArgumentHelp("Also require this public key: sha256//BASE64 of its SubjectPublicKeyInfo (repeatable).", valueName: "pin"))
    var pin: [String] = []

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
        do {
            options.pins = try pin.flatMap { try TLSClientOptions.pins(parsing: $0) }
        } catch let error as SocketEngineError {
            throw UsageError(error.message)
        }
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

/// How `listen tls://` (and `wss://`) presents itself.
struct ListenTLSOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Server certificate chain (PEM), for tls:// and wss://.", valueName: "pem"))
    var cert: String?

    @Option(name: .long, help: ArgumentHelp("The private key (PEM) of --cert.", valueName: "pem"))
    var key: String?

    @Option(name: .long, help: ArgumentHelp("Require client certificates signed by a CA in this PEM file.", valueName: "pem"))
    var clientCA: String?

    func layer(for endpoint: Endpoint) throws -> TLSLayer? {
        guard endpoint.transport == .tls || endpoint.transport == .wss else {
            if cert != nil || key != nil || clientCA != nil { throw UsageError("--cert, --key and --client-ca need a tls:// or wss:// endpoint") }
            return nil
        }
        guard let cert, let key else {
            throw UsageError("listening on \(endpoint.transport.rawValue):// needs --cert and --key")
        }
        var options = TLSServerOptions(certificateFile: cert, keyFile: key)
        options.clientCAFile = clientCA
        do {
            return try TLSLayer(server: options)
        } catch {
            throw UsageError(error.message)
        }
    }
}

extension SecurityReport {
    /// `TLSv1.3, TLS_AES_128_GCM_SHA256, peer CN=localhost, verified (chain and host name), handshake 2.1ms`
    var summary: String {
        var parts: [String] = []
        if let protocolVersion { parts.append(protocolVersion) }
        if let cipher { parts.append(cipher) }
        if let applicationProtocol { parts.append("ALPN \(applicationProtocol)") }
        parts.append("peer " + (peerSubject ?? "without a certificate"))
        parts.append(verification)
        parts.append("handshake \(handshakeDuration.formatted)")
        return parts.joined(separator: ", ")
    }
}
