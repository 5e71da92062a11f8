import Foundation

/// An open file for positioned reads and writes: a fetched chunk is written at its offset as soon as
/// it checks out, and a served one read from its offset, so no file is ever held in memory whole.
final class FileDescriptor: Sendable {
    let path: String
    private let descriptor: Int32

    /// Opens `path` for reading, or for reading and writing (created when missing, mode 0600).
    init(path: String, writable: Bool) throws(NodeError) {
        self.path = path
        let flags = writable ? (O_RDWR | O_CREAT | O_CLOEXEC) : (O_RDONLY | O_CLOEXEC)
        let opened = open(path, flags, 0o600)
        guard opened >= 0 else { throw .invalid("cannot open \(path): \(String(cString: strerror(errno)))") }
        descriptor = opened
    }

    deinit { close(descriptor) }

    /// Exactly `count` bytes at `offset`, or fewer at the end of the file.
    func read(count: Int, at offset: Int64) throws(NodeError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw .invalid("cannot read \(path): \(String(cString: strerror(errno)))") }
            if got == 0 { break }
            done += got
        }
        return done == count ? bytes : Array(bytes[..<done])
    }

    func write(_ bytes: some ContiguousBytes, at offset: Int64) throws(NodeError) {
        let failure: Int32? = bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let put = pwrite(
                    descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
                if put < 0, errno == EINTR { continue }
                guard put > 0 else { return errno }
                done += put
            }
            return nil
        }
        if let failure { throw .invalid("cannot write \(path): \(String(cString: strerror(failure)))") }
    }

    /// Sets the file's length (a fetched file's final size, so that its last chunk may come first).
    func truncate(to size: Int64) throws(NodeError) {
        guard ftruncate(descriptor, off_t(size)) == 0 else {
            throw .invalid("cannot size \(path): \(String(cString: strerror(errno)))")
        }
    }

    func sync() { fsync(descriptor) }
}
