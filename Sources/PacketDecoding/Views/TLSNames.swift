/// The names the TLS view prints: record types, versions, handshake messages, cipher suites
/// (the ones browsers, curl, OpenSSL and Go offer today; others print as `0xC0A0`) and alerts,
/// as the IANA TLS registries spell them.
enum TLSNames {
    static func contentType(_ type: UInt8) -> StaticString? {
        switch type {
        case 20: "change_cipher_spec"
        case 21: "alert"
        case 22: "handshake"
        case 23: "application_data"
        case 24: "heartbeat"
        default: nil
        }
    }

    static func version(_ version: UInt16) -> StaticString? {
        switch version {
        case 0x0300: "SSLv3"
        case 0x0301: "TLSv1.0"
        case 0x0302: "TLSv1.1"
        case 0x0303: "TLSv1.2"
        case 0x0304: "TLSv1.3"
        default: nil
        }
    }

    static func handshake(_ type: UInt8) -> StaticString? {
        switch type {
        case 0: "HelloRequest"
        case 1: "ClientHello"
        case 2: "ServerHello"
        case 4: "NewSessionTicket"
        case 5: "EndOfEarlyData"
        case 8: "EncryptedExtensions"
        case 11: "Certificate"
        case 12: "ServerKeyExchange"
        case 13: "CertificateRequest"
        case 14: "ServerHelloDone"
        case 15: "CertificateVerify"
        case 16: "ClientKeyExchange"
        case 20: "Finished"
        case 22: "CertificateStatus"
        case 24: "KeyUpdate"
        default: nil
        }
    }

    static func cipherSuite(_ suite: UInt16) -> StaticString? {
        switch suite {
        case 0x1301: "TLS_AES_128_GCM_SHA256"
        case 0x1302: "TLS_AES_256_GCM_SHA384"
        case 0x1303: "TLS_CHACHA20_POLY1305_SHA256"
        case 0x1304: "TLS_AES_128_CCM_SHA256"
        case 0xC02B: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"
        case 0xC02C: "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"
        case 0xC02F: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"
        case 0xC030: "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"
        case 0xCCA8: "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"
        case 0xCCA9: "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"
        case 0xC009: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"
        case 0xC00A: "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA"
        case 0xC013: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"
        case 0xC014: "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA"
        case 0xC023: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256"
        case 0xC027: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256"
        case 0x009C: "TLS_RSA_WITH_AES_128_GCM_SHA256"
        case 0x009D: "TLS_RSA_WITH_AES_256_GCM_SHA384"
        case 0x009E: "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256"
        case 0x009F: "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384"
        case 0x002F: "TLS_RSA_WITH_AES_128_CBC_SHA"
        case 0x0035: "TLS_RSA_WITH_AES_256_CBC_SHA"
        case 0x003C: "TLS_RSA_WITH_AES_128_CBC_SHA256"
        case 0x000A: "TLS_RSA_WITH_3DES_EDE_CBC_SHA"
        case 0x00FF: "TLS_EMPTY_RENEGOTIATION_INFO_SCSV"
        default: nil
        }
    }

    static func alert(_ description: UInt8) -> StaticString? {
        switch description {
        case 0: "close_notify"
        case 10: "unexpected_message"
        case 20: "bad_record_mac"
        case 22: "record_overflow"
        case 40: "handshake_failure"
        case 42: "bad_certificate"
        case 43: "unsupported_certificate"
        case 44: "certificate_revoked"
        case 45: "certificate_expired"
        case 46: "certificate_unknown"
        case 47: "illegal_parameter"
        case 48: "unknown_ca"
        case 49: "access_denied"
        case 50: "decode_error"
        case 51: "decrypt_error"
        case 70: "protocol_version"
        case 71: "insufficient_security"
        case 80: "internal_error"
        case 86: "inappropriate_fallback"
        case 90: "user_canceled"
        case 100: "no_renegotiation"
        case 109: "missing_extension"
        case 110: "unsupported_extension"
        case 112: "unrecognized_name"
        case 113: "bad_certificate_status_response"
        case 115: "unknown_psk_identity"
        case 116: "certificate_required"
        case 120: "no_application_protocol"
        default: nil
        }
    }

    /// GREASE values (RFC 8701: 0x0A0A, 0x1A1A … 0xFAFA) are left out of the offered versions.
    static func isGREASE(_ value: UInt16) -> Bool {
        value & 0x0F0F == 0x0A0A && value >> 12 == (value >> 4) & 0x0F
    }
}

/// The names the HTTP/2 view prints (RFC 9113 §6, §7, §6.5.2; RFC 8441's extended CONNECT).
enum HTTP2Names {
    static func frameType(_ type: UInt8) -> StaticString? {
        switch type {
        case 0: "DATA"
        case 1: "HEADERS"
        case 2: "PRIORITY"
        case 3: "RST_STREAM"
        case 4: "SETTINGS"
        case 5: "PUSH_PROMISE"
        case 6: "PING"
        case 7: "GOAWAY"
        case 8: "WINDOW_UPDATE"
        case 9: "CONTINUATION"
        default: nil
        }
    }

    /// The flags a frame type defines, bit by bit.
    static func flags(of type: UInt8) -> [(UInt8, StaticString)] {
        switch type {
        case 0: [(0x01, "END_STREAM"), (0x08, "PADDED")]
        case 1: [(0x01, "END_STREAM"), (0x04, "END_HEADERS"), (0x08, "PADDED"), (0x20, "PRIORITY")]
        case 4, 6: [(0x01, "ACK")]
        case 5: [(0x04, "END_HEADERS"), (0x08, "PADDED")]
        case 9: [(0x04, "END_HEADERS")]
        default: []
        }
    }

    static func setting(_ identifier: UInt16) -> StaticString? {
        switch identifier {
        case 1: "HEADER_TABLE_SIZE"
        case 2: "ENABLE_PUSH"
        case 3: "MAX_CONCURRENT_STREAMS"
        case 4: "INITIAL_WINDOW_SIZE"
        case 5: "MAX_FRAME_SIZE"
        case 6: "MAX_HEADER_LIST_SIZE"
        case 8: "ENABLE_CONNECT_PROTOCOL"
        case 9: "NO_RFC7540_PRIORITIES"
        default: nil
        }
    }

    static func errorCode(_ code: UInt32) -> StaticString? {
        switch code {
        case 0: "NO_ERROR"
        case 1: "PROTOCOL_ERROR"
        case 2: "INTERNAL_ERROR"
        case 3: "FLOW_CONTROL_ERROR"
        case 4: "SETTINGS_TIMEOUT"
        case 5: "STREAM_CLOSED"
        case 6: "FRAME_SIZE_ERROR"
        case 7: "REFUSED_STREAM"
        case 8: "CANCEL"
        case 9: "COMPRESSION_ERROR"
        case 10: "CONNECT_ERROR"
        case 11: "ENHANCE_YOUR_CALM"
        case 12: "INADEQUATE_SECURITY"
        case 13: "HTTP_1_1_REQUIRED"
        default: nil
        }
    }
}

/// The names the WebSocket view prints (RFC 6455 §5.2, §7.4.1).
enum WebSocketNames {
    static func opcode(_ opcode: UInt8) -> StaticString? {
        switch opcode {
        case 0: "continuation"
        case 1: "text"
        case 2: "binary"
        case 8: "close"
        case 9: "ping"
        case 10: "pong"
        default: nil
        }
    }

    static func closeCode(_ code: UInt16) -> StaticString? {
        switch code {
        case 1000: "normal"
        case 1001: "going away"
        case 1002: "protocol error"
        case 1003: "unsupported data"
        case 1005: "no status"
        case 1006: "abnormal"
        case 1007: "invalid payload"
        case 1008: "policy violation"
        case 1009: "message too big"
        case 1010: "mandatory extension"
        case 1011: "internal error"
        case 1012: "service restart"
        case 1013: "try again later"
        case 1015: "TLS handshake"
        default: nil
        }
    }
}
