import SocketEngineTLS

extension TLSFile {
    /// The option that gives this file, for the TLS layer's messages: `--cafile`, `--cert`,
    /// `--key`, `--client-ca`; a client's under `prefix` (`--upstream-` for proxy's upstream).
    func option(prefix: String = "--") -> String {
        switch self {
        case .trustedCAs: prefix + "cafile"
        case .certificate: prefix + "cert"
        case .privateKey: prefix + "key"
        case .clientCAs: "--client-ca"
        }
    }
}
