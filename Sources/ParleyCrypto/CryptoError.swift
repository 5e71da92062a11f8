/// Every failure of the crypto layer. Crypto never returns nil for a failed check: it throws one of these.
public struct CryptoError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Base: Hashable, Sendable {
        case libraryUnavailable
        case badLength(what: String, expected: Int, actual: Int)
        case badSignature
        case authenticationFailed
        case badEncoding(String)
        case keyExchangeFailed
        case insecureKeyFile(path: String, mode: UInt16)
        case keyFile(path: String, reason: String)
    }

    private let base: Base
    private init(_ base: Base) { self.base = base }

    public static let libraryUnavailable = CryptoError(.libraryUnavailable)
    public static let badSignature = CryptoError(.badSignature)
    public static let authenticationFailed = CryptoError(.authenticationFailed)
    public static let keyExchangeFailed = CryptoError(.keyExchangeFailed)

    public static func badLength(_ what: String, expected: Int, actual: Int) -> CryptoError {
        CryptoError(.badLength(what: what, expected: expected, actual: actual))
    }
    public static func badEncoding(_ reason: String) -> CryptoError { CryptoError(.badEncoding(reason)) }
    public static func insecureKeyFile(path: String, mode: UInt16) -> CryptoError {
        CryptoError(.insecureKeyFile(path: path, mode: mode))
    }
    public static func keyFile(path: String, reason: String) -> CryptoError {
        CryptoError(.keyFile(path: path, reason: reason))
    }

    public var description: String {
        switch base {
        case .libraryUnavailable: "libsodium failed to initialise"
        case let .badLength(what, expected, actual): "\(what) must be \(expected) bytes, got \(actual)"
        case .badSignature: "signature verification failed"
        case .authenticationFailed: "authenticated decryption failed (wrong key or tampered data)"
        case let .badEncoding(reason): "bad encoding: \(reason)"
        case .keyExchangeFailed: "key exchange failed (weak or invalid public key)"
        case let .insecureKeyFile(path, mode):
            "secret key file \(path) is readable by others (mode \(String(mode, radix: 8))); run: chmod 600 \(path)"
        case let .keyFile(path, reason): "key file \(path): \(reason)"
        }
    }
}
