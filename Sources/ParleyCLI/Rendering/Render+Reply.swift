import ParleyAPI
import ParleyTerminal

extension Render {
    /// The message a reply answers: a Text message's first reference (`/reply` and `send --ref` give one).
    static func repliedTo(_ message: MessageView) -> String? {
        message.tag == "Text" ? message.references.first?.id : nil
    }

    /// The line over a reply, shared by line mode and the full screen: "↳ bob: original text…", cut
    /// to one short line; "↳ reply to 1a2b3c4d" when the quoted message is not held here.
    static func quote(author: String?, text: String?, id: String) -> String {
        guard let author, let text else { return "↳ reply to \(id.prefix(8))" }
        let line = SafeText.singleLine(text)
        return "↳ \(author): " + (line.count > quoteLength ? line.prefix(quoteLength - 1) + "…" : line)
    }

    /// Characters of the quoted text kept: enough to recognise it, short enough for one line.
    static let quoteLength = 60
}

extension Render {
    /// What a quote of a poll says: its question, marked as a poll.
    static func pollQuote(_ poll: PollResultsView) -> String { "📊 " + poll.question }
}
