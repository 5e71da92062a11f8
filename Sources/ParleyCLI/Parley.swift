import ArgumentParser
import Foundation

@main
struct Parley: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley",
        abstract: "Peer-to-peer, end-to-end encrypted chat with polls, for one LAN.",
        version: ParleyVersion.description,
        subcommands: [
            Keygen.self, NodeCommand.self, Contacts.self, Chat.self, Send.self, Messages.self,
            Poll.self, Local.self, Status.self, Open.self,
            React.self, Unreact.self, Reactions.self, Read.self, Receipts.self, Members.self, Typing.self, Invites.self, Watch.self, Web.self,
        ]
    )

    /// ArgumentParser's main, except that a node's failure exits with the code of its kind
    /// (invalid 2, not found 3, forbidden 4, conflict 5, unavailable 6; see `APIFailure.Kind`), and
    /// that under `--json` every failure is a JSON line on stderr (`FailureReport`).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let json = FailureReport.wantsJSON(CommandLine.arguments.dropFirst())
            guard let report = FailureReport(error), json || error is CLIError else {
                exit(withError: error) // help, version, and ArgumentParser's own text with its usage lines
            }
            let line = json ? report.json : "Error: \(report.error.message)"
            FileHandle.standardError.write(Data((line + "\n").utf8))
            Foundation.exit(report.exitCode)
        }
    }
}
