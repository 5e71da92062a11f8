import ArgumentParser
import Foundation

@main
struct Parley: AsyncParsableCommand {
    // No `version:` here: ArgumentParser would offer --version on every subcommand. The flag below is the root's alone.
    static let configuration = CommandConfiguration(
        commandName: "parley",
        abstract: "Peer-to-peer, end-to-end encrypted chat with polls, for one LAN.",
        subcommands: [
            Keygen.self, NodeCommand.self, Contacts.self, Chat.self, Send.self, Messages.self,
            Poll.self, Local.self, Status.self, Open.self,
            React.self, Unreact.self, Reactions.self, Read.self, Receipts.self, Members.self, Typing.self, Invites.self,
            Watch.self, Web.self, Edit.self, Edits.self, Delete.self, Pin.self, Unpin.self, Pins.self,
            ThreadCommand.self,
            Search.self,
            Mute.self,
            Files.self,
        ]
    )

    @Flag(help: "Show the version: the release and the wire protocol.")
    var version = false

    func run() async throws {
        guard version else { throw CleanExit.helpRequest(self) }
        print(ParleyVersion.description)
    }

    /// ArgumentParser's main, except that every failure is one line on stderr, "Error: …" (a usage
    /// mistake ends with the help to read), or under `--json` a JSON line (`FailureReport`); and a
    /// node's failure exits with the code of its kind (invalid 2, not found 3, forbidden 4, conflict 5,
    /// unavailable 6; see `APIFailure.Kind`), a usage mistake with 64 as before.
    static func main() async {
        do {
            var command = try parseAsRoot()
            // ArgumentParser takes a parent's options after a subcommand too: refuse rather than ignore it there.
            if !(command is Parley), FailureReport.optionWords(CommandLine.arguments.dropFirst()).contains("--version")
            {
                throw ValidationError("--version is an option of parley alone: 'parley --version'")
            }
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let arguments = Array(CommandLine.arguments.dropFirst())
            guard let report = FailureReport(error, path: CommandPath(arguments, root: Parley.self)) else {
                exit(withError: error) // help and the version: not failures
            }
            let line = FailureReport.wantsJSON(arguments) ? report.json : "Error: \(report.text)"
            FileHandle.standardError.write(Data((line + "\n").utf8))
            Foundation.exit(report.exitCode)
        }
    }
}
