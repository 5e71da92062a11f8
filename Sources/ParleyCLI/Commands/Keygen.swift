import ArgumentParser
import Foundation
import ParleyCrypto

struct Keygen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create an identity: NAME.key (secret, mode 0600) and NAME.pub (shareable).")

    @Argument(help: "The identity's name, e.g. alice.")
    var name: String

    @Option(help: "Where to write the key files.")
    var dir = "keys"

    func validate() throws {
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw ValidationError("a key name uses letters, digits, '-' and '_' only")
        }
    }

    func run() async throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let identity = try Identity.generate()
        try IdentityFile.write(identity, name: name, directory: dir)
        print(identity.publicKey.hex)
        FileHandle.standardError.write(
            Data("wrote \(dir)/\(name).key (secret, mode 0600) and \(dir)/\(name).pub\n".utf8))
    }
}
