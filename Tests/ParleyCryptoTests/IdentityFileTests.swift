import Foundation
import ParleyCrypto
import Testing

struct IdentityFileTests {
    func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "parley-keys-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func writesASecretFileOnlyTheOwnerCanReadAndLoadsItBack() throws {
        let dir = try temporaryDirectory()
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
        let dir = try temporaryDirectory()
        try IdentityFile.write(try Identity.generate(), name: "bob", directory: dir)
        chmod("\(dir)/bob.key", 0o644)
        #expect(throws: CryptoError.insecureKeyFile(path: "\(dir)/bob.key", mode: 0o644)) {
            try IdentityFile.loadSecret(path: "\(dir)/bob.key")
        }
    }

    @Test func neverOverwritesAnExistingKey() throws {
        let dir = try temporaryDirectory()
        try IdentityFile.write(try Identity.generate(), name: "carol", directory: dir)
        #expect(throws: CryptoError.self) { try IdentityFile.write(try Identity.generate(), name: "carol", directory: dir) }
    }

    @Test func rejectsAFileThatIsNotAKey() throws {
        let dir = try temporaryDirectory()
        FileManager.default.createFile(atPath: "\(dir)/x.key", contents: Data("hello".utf8), attributes: [.posixPermissions: 0o600])
        #expect(throws: CryptoError.self) { try IdentityFile.loadSecret(path: "\(dir)/x.key") }
        #expect(throws: CryptoError.self) { try IdentityFile.loadSecret(path: "\(dir)/missing.key") }
    }
}
