import ArgumentParser
import ParleyAPI
import ParleyControlSocket
import ParleyTerminal

struct Search: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find your messages by their words (searched on your node only; nothing is sent).",
        discussion: """
            Every word is looked for as the start of a word, case and accents ignored; all must be there. \
            Texts, custom messages and polls' questions and options are searched; an edited message by its \
            latest text. Newest first.
            """)

    @Argument(help: "The words to look for.")
    var words: [String]

    @Option(help: "Only in this chat (id prefix or title).")
    var chat: String?

    @Option(help: "Only messages by this member (a contact name, your own name, or an id).")
    var from: String?

    @Option(help: "Only messages with this tag (Text, Custom, Poll).")
    var tag: String?

    @Option(parsing: .unconditional, help: "At most this many hits (1 to 200).")
    var limit = 25

    @Option(help: "Page on: the hits before this one (as the previous page says).")
    var before: String?

    @OptionGroup var options: ClientOptions

    func validate() throws {
        if !(1...200).contains(limit) { throw ValidationError("--limit must be between 1 and 200, not \(limit)") }
    }

    func run() async throws {
        let request = APIRequest.search(
            text: words.joined(separator: " "), chat: chat, from: from, tag: tag, limit: limit, before: before)
        let page = try await ControlClient.callOnce(request, options: options, as: SearchView.self)
        guard !options.json else {
            print(try APIJSON.encode(page))
            return
        }
        let chats =
            page.hits.isEmpty ? [] : try await ControlClient.callOnce(.chatList, options: options, as: [ChatView].self)
        let titles = Dictionary(chats.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        var lines = page.hits.map { Render.searchHit($0, chatName: titles[$0.message.chat]) }
        if lines.isEmpty { lines.append("(nothing found)") }
        if let next = page.next { lines.append("more: --before \(next.prefix(12))") }
        print(SafeText.display(lines.joined(separator: "\n")))
    }
}
