import Foundation
import SocketEngine
import TestSupport
import Testing

import Glibc

/// The one way output files are opened: refused with a reason before the work, never through a
/// symbolic link, and a whole file (a JSON report) appears only complete.
@Suite(.hangGuard, .serialized) struct OutputFileTests {
    func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func aWholeFileReplacesThePathOnlyWhenFinished() throws {
        let scratch = try Scratch()
        let path = scratch.path("r.json")
        try "old".write(toFile: path, atomically: false, encoding: .utf8)
        let file = try OutputFile.open(path, mode: .whole)
        try file.write(Array("new, ".utf8))
        #expect(contents(path) == "old", "half a report is never at the path")
        try file.write(Array("whole".utf8))
        try file.finish()
        #expect(contents(path) == "new, whole")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["r.json"], "no temporary file is left")
    }

    @Test func anAbandonedWholeFileLeavesThePathAsItWas() throws {
        let scratch = try Scratch()
        let path = scratch.path("r.json")
        try "old".write(toFile: path, atomically: false, encoding: .utf8)
        let file = try OutputFile.open(path, mode: .whole)
        try file.write(Array("half".utf8))
        file.abandon()
        #expect(contents(path) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["r.json"])
    }

    @Test func removeUnfinishedDeletesTheTemporaryFilesOfWholeFilesNotFinished() throws {
        let scratch = try Scratch()
        let file = try OutputFile.open(scratch.path("r.json"), mode: .whole)
        try file.write(Array("half".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).count == 1)
        OutputFile.removeUnfinished()
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty)
        withExtendedLifetime(file) {}
    }

    @Test func aStreamFileIsCreatedAtOnceAndWrittenAsItGoes() throws {
        let scratch = try Scratch()
        let path = scratch.path("s.pcap")
        try "old content".write(toFile: path, atomically: false, encoding: .utf8)
        let file = try OutputFile.open(path)
        #expect(contents(path) == "", "truncated when opened")
        try file.write(Array("abc".utf8))
        #expect(contents(path) == "abc")
        try file.finish()
    }

    @Test(arguments: [OutputFile.Mode.stream, .whole])
    func aSymbolicLinkIsRefusedAndItsTargetLeftAlone(mode: OutputFile.Mode) throws {
        let scratch = try Scratch()
        let target = scratch.path("target")
        try "precious".write(toFile: target, atomically: false, encoding: .utf8)
        let link = scratch.path("link")
        #expect(symlink(target, link) == 0)
        let dangling = scratch.path("dangling")
        #expect(symlink(scratch.path("nothing-yet"), dangling) == 0)
        for path in [link, dangling] {
            let error = #expect(throws: SocketEngineError.self) { try OutputFile.open(path, mode: mode) }
            #expect(error?.code == .unusableOutput && error?.isUsageError == true)
            #expect(error?.message == "\(path): is a symbolic link; refusing to follow it (give the target path itself)")
        }
        #expect(contents(target) == "precious")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("nothing-yet")), "a dangling link does not create its target")
    }

    @Test(arguments: [OutputFile.Mode.stream, .whole])
    func aMissingDirectoryOrADirectoryAtThePathIsRefusedWithItsReason(mode: OutputFile.Mode) throws {
        let scratch = try Scratch()
        let missing = #expect(throws: SocketEngineError.self) { try OutputFile.open(scratch.path("no/such/r.json"), mode: mode) }
        #expect(missing?.message == "\(scratch.path("no/such/r.json")): no such directory (\(scratch.path("no/such")))")
        let directory = #expect(throws: SocketEngineError.self) { try OutputFile.open(scratch.url.path, mode: mode) }
        #expect(directory?.message == "\(scratch.url.path): is a directory")
        let empty = #expect(throws: SocketEngineError.self) { try OutputFile.open("", mode: mode) }
        #expect(empty?.isUsageError == true)
    }

    @Test func aSocketPathIsCheckedBeforeTheSocketIsMade() throws {
        let scratch = try Scratch()
        try OutputFile.checkSocketPath(scratch.path("control.sock"))
        let missing = #expect(throws: SocketEngineError.self) { try OutputFile.checkSocketPath(scratch.path("no/control.sock")) }
        #expect(missing?.message == "\(scratch.path("no/control.sock")): no such directory (\(scratch.path("no")))")
        let link = scratch.path("link.sock")
        #expect(symlink(scratch.path("elsewhere.sock"), link) == 0)
        let refused = #expect(throws: SocketEngineError.self) { try OutputFile.checkSocketPath(link) }
        #expect(refused?.message.hasSuffix("is a symbolic link; refusing to follow it (give the target path itself)") == true)
    }
}
