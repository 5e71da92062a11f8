import NIOCore
import ParleyCrypto

extension ByteBuffer {
    /// An id's or a key's 32 bytes, copied from their inline storage without an array in between.
    mutating func writeBytes32(_ bytes: Bytes32) {
        bytes.withUnsafeBytes { _ = writeBytes($0) }
    }
}
