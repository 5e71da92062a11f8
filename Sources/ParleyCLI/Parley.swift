import ArgumentParser
import Foundation
import ParleyTerminal

@main
struct Parley: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley",
        abstract: "Peer-to-peer, end-to-end encrypted chat with polls, for one LAN.",
        subcommands: [
            Keygen.self, NodeCommand.self, Contacts.self, Chat.self, Send.self, Messages.self,
            Poll.self, Local.self, Status.self, Open.self,
            React.self, Unreact.self, Reactions.self, Read.self, Receipts.self, Members.self, Typing.self, Invites.self, Watch.self, Web.self,
        ]
    )

    /// ArgumentParser's main, except that a node's failure exits with the code of its kind
    /// (invalid 2, not found 3, forbidden 4, conflict 5, unavailable 6; see `APIFailure.Kind`).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let error as CLIError {
            FileHandle.standardError.write(Data("Error: \(SafeText.singleLine(error.description))\n".utf8))
            Foundation.exit(error.exitCode)
        } catch {
            exit(withError: error)
        }
    }
}
