import LoadGen
import SocketEngine

extension OutputFile {
    /// Opens the file an option names (`--record`, `--json`, `-w`) before the work that fills
    /// it: a path that cannot be written is printed as one line naming the option, the path and
    /// the reason, and is a usage error (exit 2) before anything is sent.
    static func open(_ path: String, mode: Mode = .stream, option: String, diagnostics: Diagnostics) throws(CommandFailed) -> OutputFile {
        do {
            return try OutputFile.open(path, mode: mode)
        } catch {
            diagnostics.error("\(option) \(error.message)")
            throw CommandFailed(status: 2)
        }
    }

    /// Checks the place of a Unix socket an option names (`--control unix:PATH`), as ``open(_:mode:option:diagnostics:)`` does.
    static func checkSocketPath(_ path: String, option: String, diagnostics: Diagnostics) throws(CommandFailed) {
        do {
            try OutputFile.checkSocketPath(path)
        } catch {
            diagnostics.error("\(option) \(error.message)")
            throw CommandFailed(status: 2)
        }
    }
}

extension LoadReport {
    /// Writes the `--json` report: into `file` (opened before the run, written whole and then
    /// renamed over its path), or to stdout when `file` is nil (`--json -`).
    func writeJSON(to file: OutputFile?, diagnostics: Diagnostics) throws {
        do {
            let data = Array(try jsonData { OptionNames.flag($0) })
            guard let file else {
                FileDescriptorWriter.standardOutput.write(data)
                return
            }
            try file.write(data)
            try file.finish()
        } catch {
            file?.abandon()
            throw diagnostics.fail(error)
        }
    }
}
