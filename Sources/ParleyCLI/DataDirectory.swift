import Foundation
import ParleyAPI

/// The `--data` directory as node and client commands check it, so that a wrong path fails in one
/// line naming it, not in Foundation's NSCocoaErrorDomain dump.
enum DataDirectory {
    /// Refuses a path that exists but is not a directory.
    static func check(_ path: String) throws(CLIError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw CLIError("--data \(path) is a file, not a directory", kind: .invalid)
        }
    }

    /// Creates the directory (mode 0700, parents as needed) unless it exists.
    static func create(_ path: String) throws(CLIError) {
        try check(path)
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CLIError("cannot create the data directory \(path): \(reason(error))", kind: .invalid)
        }
    }

    /// The POSIX reason under a Foundation error ("Not a directory", "Permission denied"), which says
    /// more than its own description.
    private static func reason(_ error: any Error) -> String {
        let error = error as NSError
        let underlying = (error.userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError } ?? error
        if underlying.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(underlying.code))) }
        return underlying.localizedDescription
    }
}
