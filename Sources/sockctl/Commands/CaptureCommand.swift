import ArgumentParser
import Capture
import PacketDecoding
import Recording
import SocketEngine

import Glibc

struct CaptureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Capture or read packets and print them exactly as tcpdump -n does.",
        discussion: """
            Output is byte-identical to tcpdump 4.99.3 with -n: the same header lines, relative \
            TCP sequence numbers, options, truncation markers ([|tcp], bad-len ...) and dumps, \
            and the same application decoding, picked by port exactly as tcpdump picks it. The \
            default dump is -X (hex and ASCII without the link header); -XX includes the link \
            header, -x/-xx print hex only, -A ASCII only, --no-dump the header line only. -v, -vv \
            and -vvv print what tcpdump's do: the IP header's TTL, id, offset, flags and length, \
            checksums verified (cksum 0x... (correct) / (incorrect -> 0x...)), IP and IPv6 options \
            and every protocol's verbose fields. The filter is a BPF expression (pcap-filter(7)) \
            given as trailing words or with -f; --port N is short for 'tcp port N'. Addresses \
            and ports are always numeric (-n is accepted and changes nothing).

            Decoded as tcpdump decodes them: HTTP (80, 8080), RTSP (554, 8554), SIP (UDP 5060), \
            FTP (21), SMTP (25), whois (43), SSH banners (22), telnet options (23), Redis RESP \
            (6379); DNS (53, also over TCP) and mDNS (5353); BOOTP/DHCP (67, 68), DHCPv6 (546, \
            547), NTP (123), syslog (514); VXLAN (4789) and Geneve (6081) with the inner frame, \
            GRE, IGMP, SCTP, DCCP; IPv4, IPv6 and its extension headers, TCP, UDP, ICMP, ICMPv6, \
            ARP; on Ethernet 802.1Q, LLC/SNAP, STP/RSTP/MSTP, LLDP and CDP. Ports and protocols \
            tcpdump decodes and sockctl does not print their generic line instead (nothing after \
            'length N' for TCP, 'UDP, length N', 'ip-proto-N'): TCP BGP (179), PPTP (1723), BEEP \
            (10288), OpenFlow (6633, 6653), MSDP (639), RPKI-RTR (323), LDP (646), NFS (2049); UDP \
            TFTP (69), RIP (520, 521), ISAKMP (500, 4500), SNMP (161, 162), Kerberos (88, 750), \
            L2TP (1701), RADIUS (1645, 1646, 1812, 1813, 3799), AFS RX (7000-7009), HSRP (1985), \
            BFD (3784, 3785, 4784, 6784), sFlow (6343), LISP (4342), VXLAN-GPE (4790), PTP (319, \
            320), OTV (8472), MPLS (6635), Babel (6696), AODV, OLSR, LWAPP, RIPng, ZEP, SOME/IP, \
            timed, VAT, Zephyr, AHCP, HNCP, LWRES, LMP, VQP, Cisco AutoRP, BCM LI and \
            AppleTalk-in-UDP; IP protocols AH, ESP, IPComp, OSPF, PIM, VRRP/CARP, RSVP, EIGRP, \
            IGRP, EGP and PGM; ethertypes other than IPv4, IPv6, ARP, 802.1Q, LLDP and PPPoE \
            (discovery with its tags, sessions with the PPP inside: LCP, IPCP, IP6CP, CCP and BACP \
            with their options under -v, PAP and CHAP).

            --decode tls,ws,http2,http,proxy (or all) adds views tcpdump lacks, one indented line each \
            after the header line, so without it the output stays tcpdump's: TLS records (type, \
            version, length; ClientHello SNI, ALPN and offered versions; ServerHello version and \
            cipher; alerts), the WebSocket upgrade and every frame (opcode, FIN, compression, \
            mask, length, close code, the start of the payload), the HTTP/2 preface and every \
            frame (type, flags, stream; settings, error codes, window increments) — gRPC \
            included — and every HTTP/1.1 message, on the packet that completes it: 'HTTP \
            request GET /a HTTP/1.1 | Host: h, Accept: */* | no body', 'HTTP response HTTP/1.1 \
            200 OK | Content-Length: 5 | body 5 bytes (Content-Length)' (framing Content-Length, \
            chunked — the length de-chunked — or until close). The views are recognised by \
            content, on any port, and follow each connection by sequence number. --json always \
            carries them in an "app" array, and --follow always shows TLS, WebSocket and HTTP/2 \
            streams record by record and frame by frame. --decode proxy shows the PROXY \
            protocol header (v1 or v2) a connection through a proxy begins with (the client's \
            address it carries; what follows is recognised as usual).

            --keylog FILE decrypts TLS 1.3 and TLS 1.2 (AES-GCM, ChaCha20-Poly1305) with an NSS \
            key log (curl's SSLKEYLOGFILE, openssl -keylogfile, sockctl's own --keylog): the \
            decrypted bytes are shown as a plaintext connection's — by --follow (with --framing), \
            --json and the --decode views. A connection that cannot be decrypted (no key, a \
            capture started mid-connection, an unsupported suite, a wrong key) says so once.

            Live capture needs root or the CAP_NET_RAW capability. As root it drops privileges \
            once the capture device is open, as tcpdump does: to the user tcpdump, or nobody \
            where there is none (one line on stderr says so); -Z USER drops to USER instead, \
            -Z root keeps root. The -w file is then created as that user, wherever root could \
            create it; -w never follows a symbolic link (see the README). Ctrl-C or SIGTERM ends \
            a live capture in order (exit status 0): the -w file is completed and the counts \
            are printed; a second signal exits at once. The banner and, at the end, the \
            'packets captured / received by filter / dropped by kernel' lines go to stderr. \
            stdout is fully buffered unless it is a terminal or -l is given.

            Long captures, as tcpdump: -w NAME.pcapng writes pcapng (other names pcap). -C SIZE \
            opens the next file once the current one holds more than SIZE million bytes (NAME1, \
            NAME2...; with -W COUNT a ring NAME0...NAME(COUNT-1), zero-padded); -G SECONDS opens a \
            new file for the first packet SECONDS after the current one began, the -w name being \
            an strftime pattern; -G with -W COUNT (no -C) stops after COUNT files. -z COMMAND \
            runs COMMAND FILE on each closed file (e.g. gzip) as the user capture runs as; capture \
            waits for them before it exits. Every file reads on its own. -U writes each packet \
            as it comes, --immediate-mode delivers packets without buffering, -q prints \
            tcpdump's quick lines (-qq: also nothing after 'IP' for an IPv4 fragment that is not \
            the first, as tcpdump's -qq), -D lists the interfaces.

            --follow reassembles TCP streams (retransmissions, out-of-order segments, overlaps; \
            missing bytes are marked) and prints each stream's payload in order with direction \
            markers; with --framing each message is one line and JSON messages are pretty-printed; \
            with --framing http each request and response shows as its start line, its headers \
            (one '  Name: value' line each) and its body, de-chunked, then its trailers. \
            --json prints one JSON object per packet, a line each, on stdout; the banner and \
            the counts stay on stderr.

            Examples:
              sockctl capture --port 6969
              sockctl capture -i lo -c 10 udp port 5353
              sockctl capture -r session.pcap -XX -tttt
              sockctl capture -r dns.pcap -vv udp port 53
              sockctl capture -i any -w out.pcap --print tcp port 443
              sockctl capture -i any -G 3600 -W 24 -z gzip -w 'trace-%Y%m%d-%H.pcap'
              sockctl capture -i any -C 100 -W 10 -w ring.pcap
              sockctl capture -i lo --decode tls,http2 tcp port 443
              sockctl capture -r session.pcap --follow --framing crlf
              sockctl capture -i lo --follow --framing http tcp port 8080
              sockctl capture -r ws.pcap --json | jq 'select(.app) | .app[]'
            """
    )

    @Option(name: .customShort("i"), help: ArgumentHelp("Interface to capture on (any = all interfaces).", valueName: "interface"))
    var interface = "any"

    @Option(name: .long, help: ArgumentHelp("Only TCP port N (short for the filter 'tcp port N').", valueName: "port"))
    var port: Int?

    @Option(name: .customShort("f"), help: ArgumentHelp("BPF filter expression (instead of trailing words).", valueName: "filter"))
    var filterExpression: String?

    @Option(name: .customShort("r"), help: ArgumentHelp("Read packets from a pcap or pcapng file (- = stdin) instead of capturing.", valueName: "file"))
    var readFile: String?

    @Option(name: .customShort("w"), help: ArgumentHelp("Write the packets to a pcap file (a name ending in .pcapng: pcapng; - = stdout) instead of printing them.", valueName: "file"))
    var writeFile: String?

    @Flag(name: .long, help: "With -w, also print the packets.")
    var print = false

    @Option(name: .customShort("c"), help: ArgumentHelp("Stop after N packets.", valueName: "count"))
    var count: Int?

    @Option(name: .customShort("s"), help: ArgumentHelp("Bytes captured per packet (0 = 262144, the default).", valueName: "snaplen"))
    var snapshotLength = 0

    @Option(name: .customShort("y"), help: ArgumentHelp("Link-layer type for live capture, e.g. LINUX_SLL, LINUX_SLL2, EN10MB.", valueName: "type"))
    var linkTypeName: String?

    @Flag(name: .customShort("n"), help: "Numeric addresses and ports (always on; accepted for tcpdump habits).")
    var numeric = false

    @Flag(name: .customShort("x"), help: "Hex dump (-xx: including the link header).")
    var hex: Int

    @Flag(name: .customShort("X"), help: "Hex and ASCII dump, the default (-XX: including the link header).")
    var hexAndASCII: Int

    @Flag(name: .customShort("A"), help: "ASCII dump (-AA: including the link header).")
    var ascii: Int

    @Flag(name: .long, help: "Header lines only, no dump.")
    var noDump = false

    @Flag(name: .customShort("t"), help: "-t no timestamp, -tt Unix seconds, -ttt since previous packet, -tttt date and time, -ttttt since first packet.")
    var timestampFlags: Int

    @Flag(name: .long, help: "Nanosecond timestamps (nine digits; -w writes a nanosecond pcap).")
    var nano = false

    @Flag(name: .customShort("S"), help: "Absolute TCP sequence numbers.")
    var absoluteSequenceNumbers = false

    @Flag(name: .customShort("e"), help: "Print the link-level header.")
    var linkHeader = false

    @Flag(name: .customShort("v"), help: "Verbose decoding, as tcpdump's -v: IP TTL, id, flags and length, checksums verified, more protocol fields (-vv, -vvv: more still).")
    var verbose: Int

    @Flag(name: .customShort("l"), help: "Line-buffered output (each packet is written at once).")
    var lineBuffered = false

    @Option(name: .customShort("Z"), help: ArgumentHelp("Drop privileges to this user after opening the capture device (default: tcpdump, else nobody; root keeps them).", valueName: "user"))
    var user: String?

    @Flag(name: .long, help: "Reassemble TCP streams and print their payload in order, with direction markers.")
    var follow = false

    @Option(
        name: .long,
        help: ArgumentHelp("With --follow: message boundaries: line, crlf, null, length:N[:be|:le], fixed:N or http; one message per entry.", valueName: "framing"),
        completion: ArgumentValues.framingCompletion,
        transform: ArgumentValues.framing
    )
    var framing: Framing?

    @Flag(name: .long, help: "Write the result as JSON: one object per packet instead of tcpdump text (with the TLS, WebSocket and HTTP/2 views in an \"app\" array).")
    var json = false

    @Option(
        name: .long,
        help: ArgumentHelp("Views beyond tcpdump, printed after each header line: tls, ws, http2, http (HTTP/1.1), proxy or all, comma-separated (always on with --json; tls, ws and http2 with --follow).", valueName: "views"),
        transform: ArgumentValues.protocolViews
    )
    var decode: ProtocolViews = []

    @Option(
        name: .customLong("keylog"),
        help: ArgumentHelp("TLS key log file (NSS format, as SSLKEYLOGFILE): TLS 1.2/1.3 is decrypted with its secrets for --decode, --json and --follow; a live capture reads lines appended later; with -w NAME.pcapng they are written into the file.", valueName: "file"),
        completion: .file()
    )
    var keylogFile: String?

    @Argument(help: ArgumentHelp("BPF filter words, e.g. tcp port 6969 and host 127.0.0.1.", valueName: "filter"))
    var filterWords: [String] = []

    @OptionGroup(title: "Long captures") var long: LongCaptureOptions

    @OptionGroup var terminal: TerminalOptions

    func validate() throws {
        if hex + hexAndASCII + ascii > 0 && noDump { throw UsageError("--no-dump cannot be combined with -x, -X or -A") }
        if hex > 2 || hexAndASCII > 2 || ascii > 2 { throw UsageError("-x, -X and -A may be given at most twice (-XX)") }
        if timestampFlags > 5 { throw UsageError("-t may be given at most five times (-ttttt)") }
        if verbose > 3 { throw UsageError("-v may be given at most three times (-vvv)") }
        if let count, count <= 0 { throw UsageError("-c needs a positive packet count") }
        if !(0...PacketPrinter.maximumSnapshotLength).contains(snapshotLength) {
            throw UsageError("-s must be between 0 and \(PacketPrinter.maximumSnapshotLength)")
        }
        if let port, !(0...65535).contains(port) { throw UsageError("--port must be between 0 and 65535") }
        if filterExpression != nil && !filterWords.isEmpty { throw UsageError("give the filter either with -f or as trailing words, not both") }
        if follow && json { throw UsageError("--follow and --json cannot be combined") }
        if framing != nil && !follow { throw UsageError("--framing needs --follow") }
        if let keylogFile, access(keylogFile, R_OK) != 0 {
            throw UsageError("--keylog \(keylogFile): \(String(cString: strerror(errno)))")
        }
        if keylogFile != nil && decode.isEmpty && !json && !follow && writeFile == nil {
            throw UsageError("--keylog decrypts for --decode, --json or --follow; give one of them")
        }
        if print && writeFile == nil { throw UsageError("--print needs -w") }
        if print && writeFile == "-" { throw UsageError("-w - writes the packets to stdout; --print would mix text into them (give -w a file)") }
        if readFile != nil && user != nil { throw UsageError("-Z only applies to live capture") }
        if readFile != nil && linkTypeName != nil { throw UsageError("-y only applies to live capture") }
        if let linkTypeName, LiveCaptureOptions.linkType(named: linkTypeName) == nil {
            throw UsageError("unknown link-layer type '\(linkTypeName)' (expected one of EN10MB, LINUX_SLL, LINUX_SLL2, RAW)")
        }
        if readFile == nil { _ = try ArgumentValues.checkedInterfaceName(interface) }
        _ = try long.checked(writeFile: writeFile, readFile: readFile)
        if let user, getpwnam(user) == nil {
            throw UsageError("unknown user '\(user)' for -Z (expected a user of this system such as nobody, or root to keep root)")
        }
    }

    /// The BPF expression: `--port`, `-f` and trailing words, joined with `and`.
    var filter: String? { PacketFilter.combining(port: port, expression: filterExpression, words: filterWords) }

    var printOptions: PrintOptions {
        var flags = TcpdumpFlags()
        flags.hex = hex
        flags.hexAndASCII = hexAndASCII
        flags.ascii = ascii
        flags.noDump = noDump
        flags.timestamps = timestampFlags
        flags.nanoseconds = nano
        flags.absoluteSequenceNumbers = absoluteSequenceNumbers
        flags.linkHeader = linkHeader
        flags.verbose = verbose
        flags.quick = long.quick
        var options = PrintOptions(flags)
        options.views = decode
        return options
    }

    func run() throws {
        let diagnostics = Diagnostics(command: "capture", verbose: false)
        if long.listInterfaces {
            do {
                FileDescriptorWriter.standardOutput.write(try InterfaceList.tcpdumpLines())
            } catch {
                throw diagnostics.fail(error)
            }
            return
        }
        let keys = try keyLogFeed(live: readFile == nil)
        let output = PacketOutput(
            lineBuffered: lineBuffered || FileDescriptorWriter.standardOutput.isTerminal,
            format: outputFormat(keys: keys?.store)
        )
        if let readFile {
            try readCapture(from: readFile, output: output, keys: keys, diagnostics: diagnostics)
        } else {
            // Reading a file ends on its own (and on SIGINT as before); a live capture ends on the signal.
            try liveCapture(output: output, keys: keys, diagnostics: diagnostics, interruption: Interruption(diagnostics))
        }
    }

    private func outputFormat(keys: TLSKeyStore?) -> PacketFormat {
        if writeFile != nil && !print { return .none }
        if json { return .json(PacketJSONWriter(keys: keys)) }
        if follow { return .follow(StreamFollower(framing: framing, keys: keys)) }
        return .text(PacketPrinter(options: printOptions, keys: keys))
    }

    // MARK: Reading a file

    private func readCapture(from path: String, output: PacketOutput, keys: KeyLogFeed?, diagnostics: Diagnostics) throws {
        let file: FilteredCaptureFile
        do {
            file = try FilteredCaptureFile(path: path, filter: filter)
        } catch {
            throw diagnostics.fail(error)
        }
        // The -w file is opened before the banner: a path that cannot be written is the only line.
        let writer = try openWriter(linkType: file.linkType, snapshotLength: file.snapshotLength, diagnostics: diagnostics)
        FileDescriptorWriter.standardError.write(file.banner + "\n")
        if file.linkType == .linuxSLL2 {
            FileDescriptorWriter.standardError.write("Warning: interface names might be incorrect\n")
        }
        do {
            defer { output.finish() }
            // -G with -W: once the last file is done, the rest is neither written nor printed.
            var stopped = false
            try file.forEach(limit: count) { header, bytes throws(CaptureError) in
                guard !stopped else { return }
                try keys?.beforePacket(input: file, writer: writer)
                stopped = try !Self.write(header, bytes, to: writer)
                if !stopped { output.packet(header, bytes) }
            }
            try writer?.finish()
        } catch {
            throw diagnostics.fail(error)
        }
    }

    static func linkTypeText(_ linkType: LinkType) -> String {
        linkType.tcpdumpName ?? "\(linkType.rawValue)"
    }
}
