import Capture
import PacketDecoding
import SocketEngine

import Glibc

extension CaptureCommand {
    /// -C or -G: more files are opened during the capture.
    var rotatesFiles: Bool { long.fileSize != nil || long.rotateSeconds != nil }

    /// `-w FILE`, opened (``OutputFile``: never through a symbolic link) before the first
    /// packet is read; a path that cannot be written is a usage error (exit 2). With -C or -G
    /// the later files are opened as they are needed (a failure then ends the capture with a
    /// write error), with -z run on each finished one.
    func openWriter(linkType: LinkType, snapshotLength: Int, diagnostics: Diagnostics) throws -> CaptureFileRotation? {
        guard let writeFile else { return nil }
        let limits = try long.checked(writeFile: writeFile, readFile: readFile)
        let clock = { Int64(time(nil)) }
        let schedule = CaptureFileSchedule(pattern: writeFile, fileSize: limits.size, seconds: limits.seconds, fileCount: limits.count, now: clock())
        let pcapng = writeFile.hasSuffix(".pcapng")
        let nanoseconds = nano
        let packetBuffered = long.packetBuffered
        // The first file is opened here, so a path that cannot be written is a usage error.
        var initial: OutputFile?? = .some(schedule.currentName == "-" ? nil : try OutputFile.open(schedule.currentName, option: "-w", diagnostics: diagnostics))
        let open = { (name: String) throws(CaptureError) -> CaptureFileOutput in
            let file: OutputFile?
            if let opened = initial {
                file = opened
                initial = .none
            } else {
                do throws(SocketEngineError) {
                    file = try PrivilegeDrop.creatingFiles { () throws(SocketEngineError) -> OutputFile in try OutputFile.open(name) }
                } catch {
                    throw CaptureError(.writeFailed, "\(name): \(error.message)")
                }
            }
            do throws(CaptureError) {
                return try CaptureFileOutput(
                    name: name, linkType: linkType, snapshotLength: snapshotLength, nanoseconds: nanoseconds,
                    pcapng: pcapng, packetBuffered: packetBuffered,
                    write: { chunk in
                        if let file { try file.write(chunk) } else { try Self.writeToStandardOutput(chunk) }
                    },
                    close: { try? file?.finish() })
            } catch {
                file?.abandon()
                throw error
            }
        }
        do {
            return try CaptureFileRotation(
                schedule: schedule, command: long.postRotateCommand.map(FinishedFileCommand.init(command:)), now: clock, open: open)
        } catch {
            throw diagnostics.fail(error)
        }
    }

    /// Writes one packet to the -w files; false once -G with -W has written its last file (the
    /// capture stops, as tcpdump does, saying so on stderr).
    static func write(_ header: PacketHeader, _ bytes: UnsafeRawBufferPointer, to writer: CaptureFileRotation?) throws(CaptureError) -> Bool {
        guard let writer else { return true }
        let written = try writer.write(header, bytes) { warning in
            FileDescriptorWriter.standardError.write("sockctl capture: \(warning)\n")
        }
        if !written, let count = writer.schedule.fileCount {
            FileDescriptorWriter.standardError.write("Maximum file limit reached: \(count)\n")
        }
        return written
    }

    /// `-w -`: the pcap bytes on stdout.
    static func writeToStandardOutput(_ chunk: [UInt8]) throws(SocketEngineError) {
        if let failure = chunk.withUnsafeBytes({ writeFully($0, to: 1) }) {
            throw SocketEngineError(.ioError, "stdout: \(String(cString: strerror(failure)).lowercased())", errno: failure)
        }
    }
}
