import ParleyAPI
import ParleyTerminal

extension Render {
    /// `Lunch #12 3f2a9c01ab12 bob: …at «noon» on…`, the matched words marked; "(edited)" when the text
    /// found is an edit's. Chat names, author names and snippets are peers' text: each on one line.
    static func searchHit(_ hit: SearchHitView, chatName: String?) -> String {
        let message = hit.message
        let chat = chatName.map(SafeText.singleLine) ?? String(message.chat.prefix(8))
        let who = name(message.author, message.authorName)
        let tag = message.tag == "Text" ? "" : " <\(SafeText.singleLine(message.tag))>"
        let snippet = hit.snippet.map { part in
            let text = SafeText.singleLine(part.text)
            return part.match ? "«\(text)»" : text
        }.joined()
        let edited = hit.matched == message.id ? "" : " (edited)"
        return "\(chat) #\(message.localNumber) \(message.id.prefix(12)) \(who)\(tag): \(snippet)\(edited)"
    }
}
