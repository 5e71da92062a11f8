import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files only the node's owner may read (the token, the sessions, the TLS key), replaced whole.
enum PrivateFile {
    /// Writes `contents` to a 0600 file beside `path`, then renames it over `path`: a reader sees
    /// the old file or the new one, never half of one, and the file is never readable by others,
    /// not even for a moment (the mode is set when it is created).
    static func replace(path: String, contents: String, what: String) throws(WebError) {
        let temporary = "\(path).\(getpid()).tmp"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw WebError("\(what) \(path): cannot write it (\(String(cString: strerror(errno))))")
        }
        let bytes = Array(contents.utf8)
        let written = bytes.isEmpty ? 0 : write(descriptor, bytes, bytes.count)
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw WebError("\(what) \(path): cannot write it (\(reason))")
        }
    }
}
