/// libFuzzer target: ``TLSKeyLog`` and ``TLSConnectionDecryptor`` — a key log and a TLS
/// connection's two byte streams, as `capture --keylog` feeds them.
///
/// Input layout: bytes 0–1 (big-endian) the key log's length L, then L bytes of key log text
/// (added in two pieces, split at L / 3, to exercise partial lines), then chunks until the end:
/// one control byte (bit 0 the side, bit 1 a gap on that side before the chunk, bit 2 the key
/// store turns live: lookups then call a reload that returns nothing), two bytes of length
/// (big-endian) and that many stream bytes (fewer at the end of the input). The same chunks are
/// also fed to ``ApplicationViewTracker``-like ``ConnectionViews`` with the key log (the views of
/// the decrypted bytes).
///
/// Besides crashes, ASan reports and timeouts, the target traps when the decryptor says more
/// than one failure, hands out data after its failure, hands out more plaintext than the
/// stream bytes it was given, or data for a side other than 0 or 1.
///
/// Seeds: the recorded sessions of Tests/Fixtures/TLS with their key logs (fuzz/decrypt-seeds.py).
/// Built by fuzz/run.sh together with every Swift file under Sources/PacketDecoding (one module, no import).
enum DecryptFuzzer {
    static func run(_ data: UnsafePointer<UInt8>, _ size: Int) {
        let input = UnsafeRawBufferPointer(start: data, count: size)
        guard size >= 2 else { return }
        let keyLength = min(size - 2, Int(input[0]) << 8 | Int(input[1]))
        var log = TLSKeyLog()
        let text = input[2..<(2 + keyLength)]
        let third = text.startIndex + keyLength / 3
        log.add(text[text.startIndex..<third])
        log.add(text[third...])
        log.finish()
        let fixed = TLSKeyStore(log: log)
        let live = TLSKeyStore(log: log, reload: { [] })
        var decryptor = TLSConnectionDecryptor(keys: fixed)
        var views = ConnectionViews(views: .all, payloadLimit: 64, keys: fixed)
        var failures = 0
        var given = 0
        var plaintext = 0
        func observe(_ output: TLSConnectionDecryptor.Output) {
            switch output {
            case .data(let side, let bytes):
                guard failures == 0 else { fatalError("data after the failure") }
                guard side == 0 || side == 1 else { fatalError("side \(side)") }
                plaintext += bytes.count
                guard plaintext <= given else { fatalError("more plaintext (\(plaintext)) than ciphertext (\(given))") }
            case .failure:
                failures += 1
                guard failures == 1 else { fatalError("a second failure") }
            }
        }
        var index = 2 + keyLength
        var switched = false
        while index + 3 <= size {
            let control = input[index]
            let length = min(size - index - 3, Int(input[index + 1]) << 8 | Int(input[index + 2]))
            let chunk = UnsafeRawBufferPointer(rebasing: input[(index + 3)..<(index + 3 + length)])
            index += 3 + length
            let side = Int(control & 1)
            if control & 4 != 0 && !switched {
                switched = true
                decryptor = TLSConnectionDecryptor(keys: live)
                failures = 0
                views = ConnectionViews(views: .all, payloadLimit: 64, keys: live)
            }
            if control & 2 != 0 {
                decryptor.gap(side: side, emit: observe)
                views.gap(side: side, next: chunk) { _ in }
            }
            given += chunk.count
            decryptor.consume(chunk, side: side, emit: observe)
            views.consume(chunk, side: side) { _ in }
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecrypt(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    DecryptFuzzer.run(data, size)
    return 0
}
