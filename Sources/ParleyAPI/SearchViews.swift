/// A page of search hits, newest first.
public struct SearchView: Codable, Sendable, Hashable {
    public let hits: [SearchHitView]
    /// The `before` that asks for the next page; null when this page is the last.
    public let next: String?

    public init(hits: [SearchHitView], next: String?) {
        self.hits = hits
        self.next = next
    }
}

/// One message found, and where its text matched.
public struct SearchHitView: Codable, Sendable, Hashable {
    /// The message found (an edited message as itself, its `text` the latest).
    public let message: MessageView
    /// The id of the message whose text matched: the message, or the edit that gave it that text.
    public let matched: String
    /// A few words around the matches, in order; `match` marks the words the search found. Peer-written
    /// text: shown through the front ends' escaping like any message text.
    public let snippet: [SnippetPart]

    public struct SnippetPart: Codable, Sendable, Hashable {
        public let text: String
        public let match: Bool

        public init(text: String, match: Bool) {
            self.text = text
            self.match = match
        }
    }

    public init(message: MessageView, matched: String, snippet: [SnippetPart]) {
        self.message = message
        self.matched = matched
        self.snippet = snippet
    }
}
