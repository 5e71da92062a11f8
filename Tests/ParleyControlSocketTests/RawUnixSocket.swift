import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A bare blocking Unix-domain socket, to play a misbehaving client or leave a stale socket file
/// behind, which the library's own types never do.
final class RawUnixSocket: Sendable {
    let descriptor: CInt

    init?(path: String, bind shouldBind: Bool = false) {
        descriptor = socket(AF_UNIX, CInt(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
        }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                let length = socklen_t(MemoryLayout<sockaddr_un>.size)
                return shouldBind ? bind(descriptor, socketAddress, length) : connect(descriptor, socketAddress, length)
            }
        }
        guard result == 0 else {
            close(descriptor)
            return nil
        }
        // Reads give up after ten seconds, so a test cannot hang on a server that never answers.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Writes everything, returning false if the peer went away first.
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, CInt(MSG_NOSIGNAL))
            }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Tells the peer we are done sending, while still reading its answer.
    func shutdownWriting() {
        shutdown(descriptor, CInt(SHUT_WR))
    }

    /// Reads until end of stream (or a reset); what the peer sent before closing. The blocking reads
    /// run on a thread of their own: on a 2-core machine the cooperative pool has two threads, and
    /// blocking one of them could starve the server under test until the read times out.
    func readToEnd() async -> [UInt8] {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: self.blockingReadToEnd()) }
        }
    }

    private func blockingReadToEnd() -> [UInt8] {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return received }
            received += chunk[..<count]
        }
    }

    deinit { close(descriptor) }
}

/// Binds a socket at `path` and closes it without removing the file, as a crashed node would.
func leaveStaleSocket(at path: String) throws {
    let socket = try #require(RawUnixSocket(path: path, bind: true))
    withExtendedLifetime(socket) {}
}

/// A fresh path for a socket in its own temporary directory (short: socket paths are limited to ~100 bytes).
func temporarySocketPath() throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "parley-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent("node.sock").path
}

/// A socket path in its own temporary directory, removed with the suite instance that owns it.
final class TemporarySocket {
    let path: String

    init() throws { path = try temporarySocketPath() }

    deinit { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
}

/// The UTF-8 bytes of `text`, to write on a raw socket.
func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
