import ArgumentParser
import Foundation
import ParleyCrypto
import ParleyAPI

struct Contacts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Name the peers you talk to.", subcommands: [Add.self, List.self])
}

extension Contacts {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a contact from its .pub file or its id; a known id with another name renames it.")

        @Argument(help: "A FILE.pub, or the peer's 64-digit hex id.")
        var key: String

        @Option(help: "The name to use for this peer in commands.")
        var name: String

        @Option(help: "Where the peer listens, HOST:PORT, if it is not found by announcements.")
        var addr: String?

        @OptionGroup var options: ClientOptions

        func run() async throws {
            let id: String
            if FileManager.default.fileExists(atPath: key) {
                id = try IdentityFile.loadPublic(path: key).key.hex
            } else if key.count == 64, Hex.isHexPrefix(key) {
                id = key.lowercased()
            } else if key.hasSuffix(".pub") || key.contains("/") {
                throw CLIError("no such file: \(key)", kind: .notFound)
            } else {
                throw CLIError("'\(key)' is neither a .pub file nor a 64-digit peer id", kind: .invalid)
            }
            try await runRequest(
                .contactsAdd(peer: id, name: name, address: addr), options: options, as: ContactAddedView.self,
                text: Self.line)
        }

        /// "added bob 1a2b3c4d5e6f", "renamed 1a2b3c4d5e6f from bob to robert", or that nothing changed.
        static func line(_ view: ContactAddedView) -> String {
            let id = view.id.prefix(12)
            return switch view.change {
            case .added: "added \(view.name) \(id)"
            case .renamed: "renamed \(id) from \(view.previousName ?? "?") to \(view.name)"
            case .readdressed: "\(view.name) \(id) now listens at \(view.address ?? "-")"
            case .unchanged: "\(view.name) \(id) is already a contact"
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List contacts.")
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runRequest(.contactsList, options: options, as: [ContactView].self) { contacts in
                contacts.isEmpty
                    ? "(no contacts)"
                    : contacts.map { "\($0.name)\t\($0.id)\t\($0.address ?? "-")" }.joined(separator: "\n")
            }
        }
    }
}
