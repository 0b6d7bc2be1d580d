import Foundation

import Glibc

/// A hand-driven WebSocket client on a blocking socket, for sending what a real client never
/// would: frames are written byte by byte as the test spells them. Use it on a thread of its
/// own (``onOwnThread``); every read times out after 5 s.
final class RawWebSocket {
    private let descriptor: Int32
    private var buffered: [UInt8] = []

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Connects to 127.0.0.1:`port` and completes the opening handshake for `path`.
    init(port: Int, path: String = "/") throws {
        descriptor = try blockingStream(toLoopbackPort: port)
        try send(Self.upgradeRequest(port: port, path: path))
        var response: [UInt8] = []
        while !response.ends(with: [13, 10, 13, 10]) {
            guard let byte = try readByte() else { throw Failure(description: "closed during the handshake: \(String(decoding: response, as: UTF8.self))") }
            response.append(byte)
        }
        let head = String(decoding: response, as: UTF8.self)
        guard head.hasPrefix("HTTP/1.1 101"), head.contains("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") else {
            throw Failure(description: "no upgrade: \(head)")
        }
    }

    deinit { Glibc.close(descriptor) }

    /// The opening handshake's request (RFC 6455's sample key, so the answer's accept value is
    /// `s3pPLMBiTxaQ9kYGzzhZRbK+xOo=`).
    static func upgradeRequest(port: Int, path: String = "/") -> [UInt8] {
        Array((
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).utf8)
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw Failure(description: "send failed: errno \(errno)") }
            offset += written
        }
    }

    /// A client frame: masked with key 1 2 3 4; `length` overrides the encoded length.
    static func frame(opcode: UInt8, fin: Bool = true, payload: [UInt8], lengthField: UInt64? = nil) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let length = lengthField ?? UInt64(payload.count)
        if length < 126 {
            bytes.append(0x80 | UInt8(length))
        } else if length <= 0xFFFF {
            bytes.append(0x80 | 126)
            bytes += [UInt8(length >> 8), UInt8(length & 0xFF)]
        } else {
            bytes.append(0x80 | 127)
            bytes += (0..<8).reversed().map { UInt8((length >> (8 * UInt64($0))) & 0xFF) }
        }
        let key: [UInt8] = [1, 2, 3, 4]
        bytes += key
        bytes += payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
        return bytes
    }

    /// The next server frame, or nil at end of stream.
    func readFrame() throws -> (opcode: UInt8, payload: [UInt8])? {
        guard let first = try readByte() else { return nil }
        guard let second = try readByte() else { throw Failure(description: "frame cut short") }
        guard second & 0x80 == 0 else { throw Failure(description: "masked frame from the server") }
        var length = UInt64(second & 0x7F)
        if length == 126 { length = try readInteger(2) } else if length == 127 { length = try readInteger(8) }
        guard length < 1 << 24 else { throw Failure(description: "frame of \(length) bytes") }
        var payload: [UInt8] = []
        for _ in 0..<length {
            guard let byte = try readByte() else { throw Failure(description: "frame cut short") }
            payload.append(byte)
        }
        return (first & 0x0F, payload)
    }

    /// Reads frames until a close frame; returns its code (nil: empty close) and whether the
    /// server then closed the TCP connection.
    func readClose() throws -> (code: UInt16?, reason: String, closedAfter: Bool) {
        while let (opcode, payload) = try readFrame() {
            guard opcode == 8 else { continue }
            let code = payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
            let reason = String(decoding: payload.dropFirst(2), as: UTF8.self)
            // Answer as a client would, then expect the server to close.
            try? send(Self.frame(opcode: 8, payload: Array(payload.prefix(2))))
            let closedAfter = (try? readByte()) == .some(nil)
            return (code, reason, closedAfter)
        }
        throw Failure(description: "connection closed without a close frame")
    }

    private func readInteger(_ count: Int) throws -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<count {
            guard let byte = try readByte() else { throw Failure(description: "frame cut short") }
            value = value << 8 | UInt64(byte)
        }
        return value
    }

    private func readByte() throws -> UInt8? {
        if buffered.isEmpty {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { return nil }
            guard count > 0 else {
                if errno == ECONNRESET { return nil }
                throw Failure(description: "read failed: errno \(errno)")
            }
            buffered = Array(chunk[..<count])
        }
        return buffered.removeFirst()
    }
}

extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
