import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `DATA/web-lock`, held (flock, exclusive) by whoever owns the web app's files: the node serving
/// the web app for as long as it runs, or `parley web --revoke` for the moment it rewrites them.
/// Without it a revoke of the files while a node starts would be lost: the node has read the old
/// token and sessions, and would keep them in memory and write them back. The kernel releases the
/// lock when its holder exits, however it exits, so a killed node leaves none behind.
final class WebDirectoryLock: Sendable {
    static let fileName = "web-lock"
    private let descriptor: Int32

    /// Takes the lock, or fails at once (never waits) saying who holds it.
    init(dataDirectory: String) throws(WebError) {
        let path = "\(dataDirectory)/\(Self.fileName)"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw WebError("the web app's lock \(path): cannot open it (\(String(cString: strerror(errno))))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw WebError(
                busy
                    ? "a node is starting or serving the web app of \(dataDirectory): run the command again once it listens (or has stopped)"
                    : "the web app's lock \(path): cannot take it (\(reason))")
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}
