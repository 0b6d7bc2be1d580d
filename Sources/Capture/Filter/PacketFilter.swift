import CLibpcap
import PacketDecoding

/// A compiled BPF filter expression applied to packets that are already in memory (reading a
/// capture file, or re-filtering), with libpcap's compiler and interpreter.
///
/// The expression is compiled for one link type, because `tcp port 80` means different byte
/// offsets behind an Ethernet header than behind a Linux cooked header; compile one filter per
/// link type when a pcapng file mixes them. Host names in an expression are resolved by
/// libpcap at compile time. An empty expression matches every packet.
///
/// Matching never reads past the captured bytes: a packet too short for a test simply fails
/// it (BPF semantics), which is not an error.
package struct PacketFilter: Sendable {
    /// The expression as given.
    package let expression: String
    /// The link type the expression was compiled for.
    package let linkType: LinkType
    private let program: CompiledProgram

    /// Compiles `expression` for packets of `linkType`.
    ///
    /// `snapshotLength` only sets the length BPF reports on a match; values outside
    /// 1...262144 are treated as 262144.
    /// - Throws: ``CaptureError/Code/invalidFilter`` with libpcap's one-line message, e.g.
    ///   `can't parse filter expression: syntax error` or `illegal port number 99999 > 65535`.
    package init(expression: String, linkType: LinkType, snapshotLength: Int = 262_144) throws(CaptureError) {
        let snap = (1...262_144).contains(snapshotLength) ? Int32(snapshotLength) : 262_144
        guard let dead = pcap_open_dead(linkType.dataLinkType, snap) else {
            throw CaptureError(.invalidFilter, "cannot compile a filter for link type \(linkType)")
        }
        defer { pcap_close(dead) }
        let program = CompiledProgram()
        if pcap_compile(dead, program.program, expression, 1, PCAP_NETMASK_UNKNOWN) != 0 {
            throw CaptureError(.invalidFilter, String(cString: pcap_geterr(dead)))
        }
        program.isCompiled = true
        self.expression = expression
        self.linkType = linkType
        self.program = program
    }

    /// Whether the packet passes the filter. Only `header.capturedLength` (capped at
    /// `bytes.count`) and `header.originalLength` are used; the timestamp is ignored.
    package func matches(_ header: PacketHeader, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let captured = min(max(header.capturedLength, 0), bytes.count)
        var pcapHeader = pcap_pkthdr()
        pcapHeader.caplen = UInt32(clamping: captured)
        pcapHeader.len = UInt32(clamping: max(header.originalLength, captured))
        if captured == 0 {
            var empty: UInt8 = 0
            return pcap_offline_filter(program.program, &pcapHeader, &empty) != 0
        }
        guard let base = bytes.baseAddress else { return false }
        return pcap_offline_filter(program.program, &pcapHeader, base.assumingMemoryBound(to: UInt8.self)) != 0
    }

    /// The same test for an owned byte array.
    package func matches(_ header: PacketHeader, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { matches(header, $0) }
    }
}

/// Owns a `bpf_program` and frees it. BPF interpretation only reads the program, so one
/// compiled program may be used from several threads at once.
final class CompiledProgram: @unchecked Sendable {
    let program: UnsafeMutablePointer<bpf_program>
    /// Set once, before the program is shared.
    var isCompiled = false

    init() {
        program = .allocate(capacity: 1)
        program.initialize(to: bpf_program())
    }

    deinit {
        if isCompiled { pcap_freecode(program) }
        program.deinitialize(count: 1)
        program.deallocate()
    }
}

extension PacketFilter {
    /// One BPF expression out of capture's `--port`, `-f` and trailing filter words, each part
    /// parenthesised and joined with `and`; nil when there is none.
    package static func combining(port: Int?, expression: String?, words: [String]) -> String? {
        var parts: [String] = []
        if let port { parts.append("tcp port \(port)") }
        if let expression, !expression.isEmpty { parts.append(expression) }
        if !words.isEmpty { parts.append(words.joined(separator: " ")) }
        return parts.count > 1 ? parts.map { "(\($0))" }.joined(separator: " and ") : parts.first
    }
}
