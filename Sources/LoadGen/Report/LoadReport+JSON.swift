import Foundation
import SocketEngine

import Glibc

/// The `--json` file: a report written as pretty JSON with sorted keys (stable for diffs and
/// scripts), and read back for `sockctl report merge`.
extension LoadReport {
    /// The largest file read back as a report.
    package static let maximumFileSize = 256 << 20

    /// The report as the `--json` file holds it, ending in a newline; the settings its lines
    /// name (``warnings``) worded by `settingNames` (the CLI: as its flags).
    public func jsonData(settingNames: @escaping @Sendable (SettingKey) -> String = { $0.plainName }) throws(LoadGenError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        if let key = ReportLines.settingNamesKey { encoder.userInfo[key] = ReportLines.SettingNames(name: settingNames) }
        do {
            var data = try encoder.encode(self)
            data.append(0x0A)
            return data
        } catch {
            throw LoadGenError(.unreadableReport, "could not encode the report: \(error)")
        }
    }

    /// Reads a `--json` file back; a file that is not one names what is wrong with it.
    public init(contentsOf path: String) throws(LoadGenError) {
        let data: Data
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw LoadGenError(.missingReport, "\(path): \(String(cString: strerror(errno)))")
        }
        do {
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            defer { try? handle.close() }
            data = try handle.read(upToCount: Self.maximumFileSize + 1) ?? Data()
        } catch {
            throw LoadGenError(.unreadableReport, "\(path): \((error as NSError).localizedDescription)")
        }
        try self.init(json: data, name: path)
    }

    /// Decodes the JSON of a `--json` file; `name` (the file's path) starts every message.
    /// Only the JSON is checked here: the figures are checked by ``validate(named:)``, which a
    /// merge calls for every part.
    public init(json data: Data, name: String) throws(LoadGenError) {
        guard data.count <= Self.maximumFileSize else {
            throw LoadGenError(.unreadableReport, "\(name): over \(Self.maximumFileSize >> 20) MiB, not a load-test result")
        }
        do {
            self = try JSONDecoder().decode(LoadReport.self, from: data)
        } catch let error as DecodingError {
            throw LoadGenError(.unreadableReport, "\(name): not a sockctl load-test result (\(Self.describe(error)))")
        } catch {
            throw LoadGenError(.unreadableReport, "\(name): not a sockctl load-test result (\(error))")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): return "missing '\(key.stringValue)'"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "bad '\(context.codingPath.map(\.stringValue).joined(separator: "."))'"
        case .dataCorrupted(let context): return context.debugDescription
        @unknown default: return "\(error)"
        }
    }
}
