import ArgumentParser
import Foundation
import ParleyAPI
import ParleyControlSocket
import ParleyTerminal

struct Messages: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Criteria query: a chat's messages, by tag and by what they reference.")

    @Argument(help: "The chat (id prefix or title).")
    var chat: String

    @Option(help: "Only messages with this tag.")
    var tag: String?

    @Option(help: "Only messages that reference this message.")
    var ref: String?

    @Option(name: .customLong("ref-tag"), help: "Only references carrying this tag.")
    var refTag: String?

    // Unconditional: "--limit -1" is refused as a negative number, not read as a short flag.
    @Option(
        parsing: .unconditional, help: "At most this many (the latest; with --after, the first after it); 0 for all.")
    var limit = 50

    @Option(help: "Page back: only messages before this message (an id prefix, as listed).")
    var before: String?

    @Option(help: "Page forward: only messages after this message (an id prefix, as listed).")
    var after: String?

    @Flag(help: "Also messages of kinds not shown (votes, reactions, unknown tags).")
    var all = false

    @OptionGroup var options: ClientOptions

    func validate() throws {
        if limit < 0 { throw ValidationError("--limit must be 0 (all) or a positive number, not \(limit)") }
        if refTag != nil, ref == nil { throw ValidationError("--ref-tag needs --ref") }
    }

    func run() async throws {
        let limit = self.limit == 0 ? nil : self.limit
        // One more than asked for tells whether there is a further page; it is not shown.
        let request = APIRequest.messages(
            chat: chat, tag: tag, ref: ref, refTag: refTag, limit: limit.map { min($0, Int.max - 1) + 1 },
            before: before, after: after,
            shown: all || tag != nil || ref != nil ? nil : true)
        var messages = try await ControlClient.callOnce(request, options: options, as: [MessageView].self)
        let forward = after != nil && before == nil
        let more = limit.map { messages.count > $0 } ?? false
        if let limit, more { messages = forward ? Array(messages.prefix(limit)) : Array(messages.suffix(limit)) }
        guard !options.json else {
            print(try APIJSON.encode(messages))
            return
        }
        var lines = messages.map(Render.line)
        if lines.isEmpty { lines.append("(no messages)") }
        if more, forward, let last = messages.last { lines.append("newer: --after \(last.id.prefix(12))") }
        if more, !forward, let first = messages.first {
            lines.insert("older: --before \(first.id.prefix(12))  (or --limit 0 for all)", at: 0)
        }
        print(SafeText.display(lines.joined(separator: "\n")))
        // Messages of members who signed two histories are left out from their fork on: say so.
        if let note = try? await forkNote(messages) {
            FileHandle.standardError.write(Data("Note: \(SafeText.display(note))\n".utf8))
        }
    }

    /// The note on members of the chat that signed two histories (`ChatView.forked`), or nil.
    private func forkNote(_ messages: [MessageView]) async throws -> String? {
        let chats = try await ControlClient.callOnce(.chatList, options: options, as: [ChatView].self)
        let listed =
            messages.first.flatMap { shown in chats.first { $0.id == shown.chat } }
            ?? Render.chat(named: chat, in: chats)
        return listed.flatMap { ForkNotice.notice(Render.forkMembers($0)) }
    }
}
