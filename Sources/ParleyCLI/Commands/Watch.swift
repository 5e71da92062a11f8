import ArgumentParser
import Foundation
import ParleyAPI
import ParleyTerminal
import ParleyControlSocket

/// A live criteria query on the command line, as BBM's live lists.
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Print the chat's messages matching the criteria as they are stored (custom tags too); marks nothing read.",
        discussion: "Runs until interrupted. With --json, one message view per line.")

    @Argument(help: "The chat (id prefix or title).")
    var chat: String

    @Option(name: .customLong("tag"), help: "Only messages with this tag; repeat for several (default: every tag).")
    var tags: [String] = []

    @Option(help: "Only messages referencing this message (MESSAGE, or MESSAGE:TAG for references with that tag).")
    var ref: String?

    @OptionGroup var options: ClientOptions

    func run() async throws {
        let client = try await options.client()
        let request = APIRequest.watchMessages(chat: chat, tags: tags.isEmpty ? nil : tags, ref: ref)
        try await client.connection.send(try APIJSON.encode(request))
        for try await line in client.connection.lines {
            guard let message = try WatchEvent.decodeLine(line).message else { continue }
            let shown = options.json ? try APIJSON.encode(message) : SafeText.display(Render.line(message))
            try FileHandle.standardOutput.write(contentsOf: Data((shown + "\n").utf8)) // at once, even into a pipe
        }
        throw CLIError("the node closed the connection")
    }
}
