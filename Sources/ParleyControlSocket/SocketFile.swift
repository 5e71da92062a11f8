#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The filesystem side of a Unix-domain socket: what is at the path, owner-only permissions, and
/// removing the file only while it is still ours (another server may have replaced it since).
struct SocketFile: Sendable {
    enum Kind { case missing, socket, other }

    let path: String
    private let device: UInt64
    private let inode: UInt64

    /// Records the identity of the socket we just bound and makes it owner-only (0600).
    init(securing path: String) throws(ControlSocketError) {
        guard chmod(path, 0o600) == 0 else {
            throw .cannotListen(
                on: path, reason: "cannot restrict permissions: " + ControlSocketError.reason(errno: errno))
        }
        guard let status = Self.status(of: path) else {
            throw .cannotListen(on: path, reason: "the socket file vanished after bind")
        }
        self.path = path
        self.device = UInt64(status.st_dev)
        self.inode = UInt64(status.st_ino)
    }

    static func kind(of path: String) -> Kind {
        guard let status = status(of: path) else { return .missing }
        return status.st_mode & S_IFMT == S_IFSOCK ? .socket : .other
    }

    static func unlinkStale(_ path: String) throws(ControlSocketError) {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw .cannotListen(
                on: path, reason: "cannot remove stale socket: " + ControlSocketError.reason(errno: errno))
        }
    }

    /// Removes the socket file if it is still the one we bound.
    func remove() {
        guard let status = Self.status(of: path), UInt64(status.st_dev) == device, UInt64(status.st_ino) == inode
        else { return }
        unlink(path)
    }

    private static func status(of path: String) -> stat? {
        var status = stat()
        return lstat(path, &status) == 0 ? status : nil
    }
}
