import Foundation
import ParleyCrypto
import Testing

/// Each test gets a fresh key directory, removed afterwards (a class suite's deinit is its teardown).
final class IdentityFileTests {
    let dir = NSTemporaryDirectory() + "parley-keys-\(UUID().uuidString)"

    init() throws { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    @Test func writesASecretFileOnlyTheOwnerCanReadAndLoadsItBack() throws {
        let identity = try Identity.generate()
        try IdentityFile.write(identity, name: "alice", directory: dir)
        let mode = try FileManager.default.attributesOfItem(atPath: "\(dir)/alice.key")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try IdentityFile.loadSecret(path: "\(dir)/alice.key").publicKey == identity.publicKey)
        let (key, name) = try IdentityFile.loadPublic(path: "\(dir)/alice.pub")
        #expect(key == identity.publicKey)
        #expect(name == "alice")
    }

    @Test func refusesASecretKeyOthersCanRead() throws {
        try IdentityFile.write(try Identity.generate(), name: "bob", directory: dir)
        chmod("\(dir)/bob.key", 0o644)
        #expect(throws: CryptoError.insecureKeyFile(path: "\(dir)/bob.key", mode: 0o644)) {
            try IdentityFile.loadSecret(path: "\(dir)/bob.key")
        }
    }

    @Test func neverOverwritesAnExistingKey() throws {
        try IdentityFile.write(try Identity.generate(), name: "carol", directory: dir)
        #expect(throws: CryptoError.self) {
            try IdentityFile.write(try Identity.generate(), name: "carol", directory: dir)
        }
    }

    @Test func refusesWithoutWritingAnythingWhenOnlyThePublicFileExists() throws {
        // Given a stray NAME.pub (e.g. copied from another machine) and no NAME.key
        FileManager.default.createFile(atPath: "\(dir)/erin.pub", contents: Data("parley-public-key-v1 00 erin\n".utf8))
        // When keygen runs, it refuses and leaves no orphan secret key
        #expect(throws: CryptoError.self) {
            try IdentityFile.write(try Identity.generate(), name: "erin", directory: dir)
        }
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/erin.key"))
    }

    @Test func rejectsAFileThatIsNotAKey() throws {
        FileManager.default.createFile(
            atPath: "\(dir)/x.key", contents: Data("hello".utf8), attributes: [.posixPermissions: 0o600])
        #expect(throws: CryptoError.self) { try IdentityFile.loadSecret(path: "\(dir)/x.key") }
        #expect(throws: CryptoError.self) { try IdentityFile.loadSecret(path: "\(dir)/missing.key") }
    }
}
