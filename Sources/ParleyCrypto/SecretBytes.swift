internal import CSodium

/// Secret key material that is wiped with `sodium_memzero` when the last reference goes away.
///
/// A class (not an array) so that copies share one buffer and there is exactly one place to wipe.
/// It is immutable after `init`, which is what makes the `Sendable` conformance sound.
final class SecretBytes: @unchecked Sendable {
    private let pointer: UnsafeMutablePointer<UInt8>
    let count: Int

    /// `fill` is a libsodium call writing the secret; a non-zero result throws `failure`.
    init(count: Int, failure: CryptoError, fill: (UnsafeMutablePointer<UInt8>) -> Int32) throws(CryptoError) {
        pointer = .allocate(capacity: count)
        pointer.initialize(repeating: 0, count: count)
        self.count = count
        guard fill(pointer) == 0 else { throw failure } // deinit still wipes and frees
    }

    convenience init(copying bytes: [UInt8]) throws(CryptoError) {
        try self.init(count: bytes.count, failure: .libraryUnavailable) {
            $0.update(from: bytes, count: bytes.count); return 0
        }
    }

    func withPointer<R>(_ body: (UnsafePointer<UInt8>) throws -> R) rethrows -> R {
        try body(pointer)
    }

    deinit {
        sodium_memzero(pointer, count)
        pointer.deallocate()
    }
}
