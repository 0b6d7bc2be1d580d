// pcapprint: prints a capture file as `sockctl capture -r FILE FLAGS` does, built by swiftc from
// Sources/PacketDecoding alone (no package build, no libpcap): the quick loop for printer work
// and the engine of compare.py. No BPF filter; `-c N` is honoured.
// Usage: pcapprint FILE [tcpdump output flags: -n -v -X -e -tttt -S -c N ...] [--decode VIEWS] [--json]
#if canImport(Glibc)
import Glibc
#endif

@main
enum PcapPrint {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let path = arguments.first else {
            fputs("usage: pcapprint FILE [flags...]\n", stderr)
            exit(2)
        }
        var flags = Array(arguments.dropFirst())
        var limit = Int.max
        if let index = flags.firstIndex(of: "-c"), index + 1 < flags.count, let count = Int(flags[index + 1]) {
            limit = count
            flags.removeSubrange(index...(index + 1))
        }
        var views: ProtocolViews = []
        if let index = flags.firstIndex(of: "--decode"), index + 1 < flags.count, let parsed = ProtocolViews(list: flags[index + 1]) {
            views = parsed
            flags.removeSubrange(index...(index + 1))
        }
        let json = flags.contains("--json")
        let dumpFlags: Set<String> = ["-x", "-xx", "-X", "-XX", "-A", "-AA"]
        if !flags.contains(where: { dumpFlags.contains($0) }) { flags.append("--no-dump") }
        setenv("TZ", "UTC", 1)
        tzset()
        let reader: CaptureFileReader
        do {
            reader = try CaptureFileReader(path: path)
        } catch {
            fputs("pcapprint: \(error)\n", stderr)
            exit(1)
        }
        var options = PrintOptions(TcpdumpFlags(arguments: flags))
        options.views = views
        var printer = PacketPrinter(options: options)
        var writer = PacketJSONWriter()
        var out: [UInt8] = []
        out.reserveCapacity(1 << 17)
        var printed = 0
        func flush() {
            out.withUnsafeBytes { _ = fwrite($0.baseAddress, 1, $0.count, stdout) }
            out.removeAll(keepingCapacity: true)
        }
        do {
            while printed < limit, let record = try reader.next() {
                if json {
                    writer.append(record.header, record.bytes, into: &out)
                } else {
                    printer.print(record.header, record.bytes, into: &out)
                }
                printed += 1
                if out.count >= 1 << 16 { flush() }
            }
        } catch {
            flush()
            fputs("pcapprint: \(error)\n", stderr)
            exit(1)
        }
        flush()
    }
}
