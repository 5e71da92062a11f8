internal import CSodium

/// libsodium must be initialised once per process before any other call; every entry point goes through here.
enum Sodium {
    private static let initialised: Bool = sodium_init() >= 0

    static func ensureInitialised() throws(CryptoError) {
        guard initialised else { throw .libraryUnavailable }
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        _ = initialised
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }

    static func checkLength(_ bytes: some Collection<UInt8>, _ expected: Int, _ what: String) throws(CryptoError) {
        guard bytes.count == expected else { throw .badLength(what, expected: expected, actual: bytes.count) }
    }
}

/// Cryptographically secure random bytes, for nonces and ids.
public func secureRandomBytes(count: Int) -> [UInt8] { Sodium.randomBytes(count) }
