import Foundation

/// A private temporary directory for the run's stores and key files, removed at the end.
struct ScratchDirectory {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.path
        path = "\(base)/parley-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
