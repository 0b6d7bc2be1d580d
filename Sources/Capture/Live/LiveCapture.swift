import CLibpcap
import PacketDecoding
import Synchronization

import Glibc

/// A running libpcap capture on one interface (or `any`), already filtered by BPF in the kernel.
///
/// ```swift
/// let capture = try LiveCapture.open(LiveCaptureOptions(interface: "lo", filter: "tcp port 6969"))
/// try capture.run(count: 10) { header, bytes in … }        // blocks this thread
/// for try await packet in capture.packets { … }            // or: an async sequence
/// ```
///
/// Packets are captured into the kernel ring buffer from the moment ``open(_:)`` returns, so
/// traffic started before the loop begins is not lost (unless the ring buffer overflows, which
/// ``statistics()`` reports as dropped by kernel).
///
/// Only one loop runs at a time: ``run(count:handler:)`` and the stream from ``packets`` /
/// ``packetStream(count:bufferLimit:)`` may be used one after another, not at once.
/// ``stop()`` may be called from any thread, also from a signal-handling queue or from inside
/// the handler; it is sticky — once stopped, further loops return at once. The device is closed
/// when the last reference goes away.
public final class LiveCapture: Sendable {
    /// The options the capture was opened with.
    public let options: LiveCaptureOptions
    /// The link-layer header type packets arrive with (after `-y` / the `any` default).
    public let linkType: LinkType
    /// The snapshot length libpcap actually uses (`pcap_snapshot`).
    public let snapshotLength: Int
    /// A non-fatal note from `pcap_activate` (e.g. promiscuous mode not supported), one line.
    public let warning: String?

    let handle: PcapHandle
    let stopRequested = Atomic<Bool>(false)
    private let running = Atomic<Bool>(false)
    let streamDrops = Atomic<Int>(0)

    private init(options: LiveCaptureOptions, handle: PcapHandle, linkType: LinkType, snapshotLength: Int, warning: String?) {
        self.options = options
        self.handle = handle
        self.linkType = linkType
        self.snapshotLength = snapshotLength
        self.warning = warning
    }

    /// The interface name as given (`lo`, `any`).
    public var interface: String { options.interface }

    /// tcpdump's banner: `listening on lo, link-type EN10MB (Ethernet), snapshot length 262144 bytes`.
    public var banner: String {
        "listening on \(interface), link-type \(linkTypeText), snapshot length \(snapshotLength) bytes"
    }

    /// `EN10MB (Ethernet)`; for link types sockctl does not decode, libpcap's name and description.
    public var linkTypeText: String {
        if let name = linkType.tcpdumpName { return name }
        let dlt = linkType.dataLinkType
        guard let name = pcap_datalink_val_to_name(dlt) else { return "\(linkType.rawValue)" }
        let description = pcap_datalink_val_to_description(dlt).map { String(cString: $0) } ?? "unknown"
        return "\(String(cString: name)) (\(description))"
    }

    /// Opens and activates the device, selects the link type and installs the filter.
    ///
    /// - Throws: ``CaptureError`` with one line of text:
    ///   `capture on lo needs root or the CAP_NET_RAW capability; grant it with: sudo setcap cap_net_raw,cap_net_admin=eip /path/to/sockctl`,
    ///   `lo0: No such device exists`, `LINUX_SLL2 is not one of the link types supported by lo`,
    ///   or libpcap's filter message such as `can't parse filter expression: syntax error`.
    public static func open(_ options: LiveCaptureOptions) throws(CaptureError) -> LiveCapture {
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        guard let pcap = errorBuffer.withUnsafeMutableBufferPointer({ pcap_create(options.interface, $0.baseAddress) }) else {
            let text = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw CaptureError(.activationFailed, "\(options.interface): \(text)")
        }
        let handle = PcapHandle(pcap)
        let device = options.interface

        pcap_set_snaplen(pcap, Int32(clamping: options.snapshotLength))
        pcap_set_promisc(pcap, options.promiscuous && device != "any" ? 1 : 0)
        pcap_set_timeout(pcap, Int32(clamping: max(options.bufferTimeoutMilliseconds, 0)))
        pcap_set_immediate_mode(pcap, options.immediate ? 1 : 0)
        if options.timestampPrecision == .nanoseconds {
            pcap_set_tstamp_precision(pcap, Int32(PCAP_TSTAMP_PRECISION_NANO))
        }

        let status = pcap_activate(pcap)
        let warning: String?
        if status < 0 {
            throw activationError(status: status, device: device, detail: handle.lastError)
        } else if status > 0 {
            let detail = handle.lastError
            let summary = String(cString: pcap_statustostr(status))
            if status == PCAP_WARNING && !detail.isEmpty {
                warning = "WARNING: \(detail)"
            } else {
                warning = "WARNING: \(device): \(summary)\(detail.isEmpty ? "" : " (\(detail))")"
            }
        } else {
            warning = nil
        }

        if let wanted = options.linkType {
            if pcap_set_datalink(pcap, wanted.dataLinkType) != 0 {
                let name = wanted.tcpdumpName.map { String($0.prefix { $0 != " " }) } ?? "\(wanted.rawValue)"
                throw CaptureError(.linkTypeNotSupported, "\(name) is not one of the link types supported by \(device)")
            }
        } else if device == "any" {
            _ = pcap_set_datalink(pcap, LinkType.linuxSLL2.dataLinkType)
        }

        if let filter = options.filter, !filter.isEmpty {
            var program = bpf_program()
            if pcap_compile(pcap, &program, filter, 1, PCAP_NETMASK_UNKNOWN) != 0 {
                throw CaptureError(.invalidFilter, handle.lastError)
            }
            defer { pcap_freecode(&program) }
            if pcap_setfilter(pcap, &program) != 0 {
                throw CaptureError(.invalidFilter, "cannot install filter on \(device): \(handle.lastError)")
            }
        }

        return LiveCapture(
            options: options,
            handle: handle,
            linkType: LinkType(dataLinkType: pcap_datalink(pcap)),
            snapshotLength: Int(pcap_snapshot(pcap)),
            warning: warning
        )
    }

    static func activationError(status: Int32, device: String, detail: String) -> CaptureError {
        switch status {
        case PCAP_ERROR_PERM_DENIED, PCAP_ERROR_PROMISC_PERM_DENIED:
            return CaptureError(
                .permissionDenied,
                "capture on \(device) needs root or the CAP_NET_RAW capability; grant it with: sudo setcap cap_net_raw,cap_net_admin=eip \(executablePath())")
        case PCAP_ERROR_NO_SUCH_DEVICE:
            let summary = String(cString: pcap_statustostr(status))
            let extra = detail.isEmpty || detail == summary ? "" : " (\(detail))"
            return CaptureError(.noSuchDevice, "\(device): \(summary)\(extra)")
        default:
            let summary = status == PCAP_ERROR ? "" : String(cString: pcap_statustostr(status))
            switch (summary.isEmpty, detail.isEmpty) {
            case (true, true): return CaptureError(.activationFailed, "\(device): cannot open the capture device")
            case (true, false): return CaptureError(.activationFailed, "\(device): \(detail)")
            case (false, true): return CaptureError(.activationFailed, "\(device): \(summary)")
            case (false, false): return CaptureError(.activationFailed, "\(device): \(summary) (\(detail))")
            }
        }
    }

    /// The running executable (`/proc/self/exe`), for the `setcap` hint; `sockctl` if unknown.
    static func executablePath() -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let length = buffer.withUnsafeMutableBytes { raw -> Int in
            guard let base = raw.baseAddress else { return -1 }
            return readlink("/proc/self/exe", base.assumingMemoryBound(to: CChar.self), raw.count)
        }
        guard length > 0, length <= buffer.count else { return "sockctl" }
        return String(decoding: buffer[0..<length], as: UTF8.self)
    }

    /// Ends the loop that is running (or the next one) as soon as libpcap notices: at once when
    /// it is waiting for packets, after the current packet when it is inside the handler.
    ///
    /// Safe from any thread; calling it more than once is harmless.
    public func stop() {
        stopRequested.store(true, ordering: .releasing)
        pcap_breakloop(handle.pcap)
    }

    /// Whether ``stop()`` has been called.
    package var isStopped: Bool { stopRequested.load(ordering: .acquiring) }

    /// libpcap's counters so far, nil if the device cannot report them.
    ///
    /// Meant for after a loop has ended (tcpdump's closing lines); libpcap also allows it while
    /// a loop runs, as tcpdump does on SIGUSR1.
    public func statistics() -> CaptureStatistics? {
        var stats = pcap_stat()
        guard pcap_stats(handle.pcap, &stats) == 0 else { return nil }
        return CaptureStatistics(received: stats.ps_recv, droppedByKernel: stats.ps_drop, droppedByInterface: stats.ps_ifdrop)
    }

    /// Reads packets on the calling thread until `count` packets were handled (nil: no limit),
    /// ``stop()`` was called, or reading fails.
    ///
    /// `bytes` is valid only during the call of `handler` (it points into libpcap's ring buffer);
    /// copy what you keep. Nothing is allocated per packet. A `count` of zero or less returns at once.
    /// - Throws: ``CaptureError/Code/readFailed`` (e.g. `capture on eth0 failed: The interface went down`)
    ///   or ``CaptureError/Code/alreadyRunning``.
    public func run(count: Int? = nil, handler: (PacketHeader, UnsafeRawBufferPointer) -> Void) throws(CaptureError) {
        if let count, count <= 0 { return }
        guard running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            throw CaptureError(.alreadyRunning, "capture on \(interface) is already being read")
        }
        defer { running.store(false, ordering: .releasing) }

        let pcap = handle.pcap
        let linkType = linkType
        let precision: TimestampPrecision = options.timestampPrecision
        var remaining = count
        var failure: String?
        withoutActuallyEscaping(handler) { handler in
            var context = DispatchContext(handler: handler, linkType: linkType, precision: precision)
            withUnsafeMutablePointer(to: &context) { contextPointer in
                let user = UnsafeMutableRawPointer(contextPointer).assumingMemoryBound(to: UInt8.self)
                while !stopRequested.load(ordering: .acquiring) {
                    let batch = remaining.map { Int32(clamping: $0) } ?? -1
                    let result = pcap_dispatch(pcap, batch, { user, header, bytes in
                        guard let user, let header else { return }
                        let context = UnsafeMutableRawPointer(user).assumingMemoryBound(to: DispatchContext.self)
                        context.pointee.deliver(header, bytes)
                    }, user)
                    if result == PCAP_ERROR_BREAK { break }
                    if result < 0 {
                        failure = handle.lastError
                        break
                    }
                    if let left = remaining {
                        let now = left - Int(result)
                        if now <= 0 { break }
                        remaining = now
                    }
                }
            }
        }
        if let failure {
            throw CaptureError(.readFailed, "capture on \(interface) failed: \(failure.isEmpty ? "unknown libpcap error" : failure)")
        }
    }
}

/// What the C callback of `pcap_dispatch` needs, passed through its `user` pointer.
private struct DispatchContext {
    let handler: (PacketHeader, UnsafeRawBufferPointer) -> Void
    var header: PacketHeader

    init(handler: @escaping (PacketHeader, UnsafeRawBufferPointer) -> Void, linkType: LinkType, precision: TimestampPrecision) {
        self.handler = handler
        self.header = PacketHeader(seconds: 0, fraction: 0, precision: precision, capturedLength: 0, originalLength: 0, linkType: linkType)
    }

    mutating func deliver(_ pcapHeader: UnsafePointer<pcap_pkthdr>, _ bytes: UnsafePointer<UInt8>?) {
        let record = pcapHeader.pointee
        header.seconds = Int64(record.ts.tv_sec)
        header.fraction = UInt32(clamping: record.ts.tv_usec)
        let captured = bytes == nil ? 0 : Int(record.caplen)
        header.capturedLength = captured
        header.originalLength = max(Int(record.len), captured)
        handler(header, UnsafeRawBufferPointer(start: bytes, count: captured))
    }
}

/// Owns the `pcap_t` and closes it when the last ``LiveCapture`` (or its stream thread) lets go.
///
/// libpcap calls on one handle are not synchronized; ``LiveCapture`` keeps its packet loop to
/// one thread at a time and only uses thread-safe `pcap_breakloop` and `pcap_stats` alongside it.
final class PcapHandle: @unchecked Sendable {
    let pcap: OpaquePointer

    init(_ pcap: OpaquePointer) { self.pcap = pcap }

    deinit { pcap_close(pcap) }

    var lastError: String {
        CaptureError.oneLine(String(cString: pcap_geterr(pcap)))
    }
}
