import NIOSSL
import SocketEngine

import Glibc

/// Why a server's certificate was refused, said from the certificate the refused handshake
/// received (BoringSSL reports only that verification failed).
extension TLSLayer {
    /// What is wrong with `certificate` for a client that refused it.
    static func describeRefusal(_ certificate: NIOSSLCertificate) -> SettingText {
        let now = time(nil)
        let subject = describe(certificate.subjectName)
        if certificate.notValidAfter < now {
            return "certificate expired on \(date(certificate.notValidAfter)) (subject \(subject))"
        }
        if certificate.notValidBefore > now {
            return "certificate is not valid before \(date(certificate.notValidBefore)) (subject \(subject))"
        }
        if certificate.subjectName == certificate.issuerName {
            return "self-signed certificate (subject \(subject)): trust it with \(.cafile), or skip verification with \(.insecure)"
        }
        return "certificate signed by an unknown CA (issuer \(describe(certificate.issuerName))): give that CA with \(.cafile)"
    }

    static func describe(_ names: [SSLCertificateName]) -> String {
        let parts = names.map { name -> String in
            let key: String
            switch name.type {
            case .commonName: key = "CN"
            case .organization: key = "O"
            case .organizationalUnit: key = "OU"
            case .country: key = "C"
            case .state: key = "ST"
            case .city: key = "L"
            case .emailAddress: key = "emailAddress"
            default: key = "?"
            }
            return "\(key)=\(name.value)"
        }
        return parts.isEmpty ? "(empty)" : parts.joined(separator: ", ")
    }

    static func date(_ time: time_t) -> String {
        var value = time
        var parts = tm()
        gmtime_r(&value, &parts)
        func two(_ number: Int32) -> String { number < 10 ? "0\(number)" : "\(number)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) UTC"
    }
}
