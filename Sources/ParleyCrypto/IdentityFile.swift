#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Key files in `keys/`: `NAME.key` holds the secret seed (mode 0600), `NAME.pub` the shareable public key.
///
/// Formats (one line each, see docs/PROTOCOL.md):
///     parley-secret-key-v1 <64 hex digits: Ed25519 seed>
///     parley-public-key-v1 <64 hex digits: Ed25519 public key> <name>
public enum IdentityFile {
    static let secretPrefix = "parley-secret-key-v1"
    static let publicPrefix = "parley-public-key-v1"

    /// Reads a secret key file, refusing one that group or others can read, as ssh does.
    public static func loadSecret(path: String) throws(CryptoError) -> Identity {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .keyFile(path: path, reason: "cannot read it (\(errnoText()))") }
        let mode = UInt16(info.st_mode & 0o777)
        guard mode & 0o077 == 0 else { throw .insecureKeyFile(path: path, mode: mode) }
        let fields = try readText(path).split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, fields[0] == secretPrefix else {
            throw .keyFile(path: path, reason: "not a Parley secret key (expected \"\(secretPrefix) <hex>\")")
        }
        return try Identity(seed: Hex.decode(fields[1]))
    }

    /// Reads a public key file and the name written in it.
    public static func loadPublic(path: String) throws(CryptoError) -> (key: SigningPublicKey, name: String?) {
        let fields = try readText(path).split(whereSeparator: \.isWhitespace)
        guard fields.count >= 2, fields[0] == publicPrefix else {
            throw .keyFile(path: path, reason: "not a Parley public key (expected \"\(publicPrefix) <hex> [name]\")")
        }
        let key = try SigningPublicKey(rawRepresentation: Hex.decode(fields[1]))
        return (key, fields.count > 2 ? String(fields[2]) : nil)
    }

    /// Writes `NAME.key` (0600) and `NAME.pub` in `directory`. Neither is ever overwritten, and
    /// nothing is written when either exists, so a refusal never leaves half an identity behind.
    public static func write(_ identity: Identity, name: String, directory: String) throws(CryptoError) {
        for path in ["\(directory)/\(name).key", "\(directory)/\(name).pub"] where access(path, F_OK) == 0 {
            throw .keyFile(path: path, reason: "already exists; refusing to overwrite a key")
        }
        let seedHex = identity.seed.withPointer {
            Hex.encode(UnsafeBufferPointer(start: $0, count: Identity.seedByteCount))
        }
        try create(path: "\(directory)/\(name).key", mode: 0o600, text: "\(secretPrefix) \(seedHex)\n")
        try create(
            path: "\(directory)/\(name).pub", mode: 0o644, text: "\(publicPrefix) \(identity.publicKey.hex) \(name)\n")
    }

    private static func create(path: String, mode: mode_t, text: String) throws(CryptoError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else {
            let reason =
                errno == EEXIST ? "already exists; refusing to overwrite a key" : "cannot create it (\(errnoText()))"
            throw .keyFile(path: path, reason: reason)
        }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { writeAll(fd, $0) }
        guard written == bytes.count, fchmod(fd, mode) == 0 else {
            throw .keyFile(path: path, reason: "cannot write it (\(errnoText()))")
        }
    }

    /// `write(2)` under a name that does not clash with this type's `write`.
    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        #if canImport(Glibc)
            Glibc.write(fd, bytes.baseAddress, bytes.count)
        #else
            Darwin.write(fd, bytes.baseAddress, bytes.count)
        #endif
    }

    private static func readText(_ path: String) throws(CryptoError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .keyFile(path: path, reason: "cannot read it (\(errnoText()))") }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { throw .keyFile(path: path, reason: "empty or unreadable") }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
