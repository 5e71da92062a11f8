import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import ParleyCrypto

/// The secret that lets a browser act as this node's user: 32 random bytes as 64 lower-case hex
/// digits, kept in `DATA/web-token` (mode 0600). Like a Syncthing API key, whoever has it is the user,
/// so it is compared in constant time and never logged.
public struct WebToken: Sendable, CustomStringConvertible {
    public static let byteCount = 32
    static let fileName = "web-token"

    /// The token itself; only `parley web` prints it (inside the login URL).
    public let hex: String

    init(hex: String) {
        self.hex = hex
    }

    /// Never the secret: a token may end up in an interpolated log line by mistake.
    public var description: String { "WebToken(redacted)" }

    public static func path(dataDirectory: String) -> String { "\(dataDirectory)/\(fileName)" }

    /// A fresh token from libsodium's random source.
    public static func generate() -> WebToken {
        WebToken(hex: Hex.encode(secureRandomBytes(count: byteCount)))
    }

    /// The data directory's token, created (0600, never overwritten) when there is none yet.
    public static func loadOrCreate(dataDirectory: String) throws(WebError) -> WebToken {
        let path = path(dataDirectory: dataDirectory)
        if access(path, F_OK) == 0 { return try load(dataDirectory: dataDirectory) }
        let token = generate()
        // O_EXCL: a token another process wrote in between is kept, and read back below.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST { return try load(dataDirectory: dataDirectory) }
            throw .tokenFile(path, "cannot create it (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        let line = Array("\(token.hex)\n".utf8)
        guard write(descriptor, line, line.count) == line.count else {
            throw .tokenFile(path, "cannot write it (\(String(cString: strerror(errno))))")
        }
        return token
    }

    /// A fresh token in place of the data directory's (`parley web --revoke`): written whole to a
    /// 0600 file beside it, then renamed over it, so no reader ever sees half a token.
    public static func replace(dataDirectory: String) throws(WebError) -> WebToken {
        let token = generate()
        try PrivateFile.replace(path: path(dataDirectory: dataDirectory), contents: "\(token.hex)\n", what: "web token")
        return token
    }

    /// The data directory's token; refused when others may read the file, as key files are.
    public static func load(dataDirectory: String) throws(WebError) -> WebToken {
        let path = path(dataDirectory: dataDirectory)
        let mode: Int
        do {
            mode = try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0o777
        } catch {
            throw .tokenFile(path, "cannot read it (\(error.localizedDescription))")
        }
        guard mode & 0o077 == 0 else {
            throw .tokenFile(
                path,
                "group or others may read it (mode \(String(mode & 0o777, radix: 8))); chmod 600 it, or delete it for a new token"
            )
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw .tokenFile(path, "cannot read it") }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.utf8.count == byteCount * 2, text.utf8.allSatisfy({ Self.isLowerHex($0) }) else {
            throw .tokenFile(
                path, "not a token (expected \(byteCount * 2) lower-case hex digits); delete it for a new one")
        }
        return WebToken(hex: text)
    }

    /// Whether `candidate` is this token. It takes the same time wherever the first difference is,
    /// so timing tells an attacker nothing about how much of a guess was right.
    public func matches(_ candidate: String) -> Bool {
        let expected = Array(hex.utf8), given = Array(candidate.utf8)
        guard expected.count == given.count else { return false } // the length is no secret: always 64
        var difference: UInt8 = 0
        for index in expected.indices { difference |= expected[index] ^ given[index] }
        return difference == 0
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
