import Capture
import Dispatch
import PacketDecoding
import Synchronization

import Glibc

extension CaptureCommand {
    /// Live capture: open the device, drop privileges (to tcpdump or nobody, or -Z USER), print or write until -c packets,
    /// Ctrl-C or SIGTERM, then tcpdump's statistics lines on stderr.
    func liveCapture(output: PacketOutput, keys: KeyLogFeed?, diagnostics: Diagnostics, interruption: Interruption) throws {
        var options = LiveCaptureOptions(interface: interface)
        options.snapshotLength = snapshotLength == 0 ? PacketPrinter.maximumSnapshotLength : snapshotLength
        let printsAtOnce = lineBuffered || FileDescriptorWriter.standardOutput.isTerminal
        options.immediate = printsAtOnce || long.immediateMode
        options.bufferTimeoutMilliseconds = printsAtOnce ? 100 : 1000
        options.filter = filter
        options.linkType = linkTypeName.flatMap(LiveCaptureOptions.linkType(named:))
        options.timestampPrecision = nano ? .nanoseconds : .microseconds
        let capture: LiveCapture
        do {
            capture = try LiveCapture.open(options)
        } catch {
            throw diagnostics.fail(error)
        }
        if let warning = capture.warning {
            FileDescriptorWriter.standardError.write("sockctl capture: \(warning)\n")
        }
        // Root is given up once the device is open (-Z root keeps it); the -w file is opened
        // in between, as the user but where root could create it, as tcpdump does.
        let drop: PrivilegeDrop?
        do {
            drop = try PrivilegeDrop.forCapture(user: user)
            try drop?.begin()
        } catch {
            throw diagnostics.fail(error)
        }
        let writer = try openWriter(linkType: capture.linkType, snapshotLength: capture.snapshotLength, diagnostics: diagnostics)
        if let drop {
            do {
                try drop.finish(keepingFileCreation: rotatesFiles)
            } catch {
                throw diagnostics.fail(error)
            }
            diagnostics.note("dropped privileges to user \(drop.user)\(user == nil ? " (-Z root keeps them)" : "")")
        }
        if interface == "any" && linkTypeName == nil {
            FileDescriptorWriter.standardError.write("sockctl capture: data link type \(capture.linkType.tcpdumpName.map { String($0.prefix { $0 != " " }) } ?? "\(capture.linkType.rawValue)")\n")
        }
        // Watched before "listening on": a signal sent as soon as that line appears stops the
        // capture in order (the count, the file flushed) instead of killing it.
        interruption.onStop { capture.stop() }
        defer { interruption.cancel() }
        FileDescriptorWriter.standardError.write(
            "listening on \(interface), link-type \(Self.linkTypeText(capture.linkType)), snapshot length \(capture.snapshotLength) bytes\n")

        var captured = 0
        var writeError: (any Error)?
        var filesDone = false
        do {
            try capture.run(count: count) { header, bytes in
                captured += 1
                guard writeError == nil, !filesDone else { return }
                do {
                    try keys?.beforePacket(input: nil, writer: writer)
                    filesDone = try !Self.write(header, bytes, to: writer)
                } catch {
                    writeError = error
                }
                if writeError != nil || filesDone {
                    capture.stop()
                    return
                }
                output.packet(header, bytes)
            }
        } catch {
            output.finish()
            FileDescriptorWriter.standardError.write("sockctl capture: \(error)\n")
            throw CommandFailed()
        }
        if interruption.signal != nil && output.isPrinting && writeFile == nil { output.append("\n") }
        output.finish()
        try writer?.finish()
        if let writeError {
            throw diagnostics.fail(writeError)
        }
        FileDescriptorWriter.standardError.write(CaptureStatistics.tcpdumpLines(captured: captured, capture.statistics()))
    }
}
