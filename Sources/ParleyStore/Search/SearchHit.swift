public import ParleyCore

/// One message found by `MessageStore.search`.
public struct SearchHit: Sendable, Hashable {
    /// The message found. A match in an edit's text is this message, the edit's target.
    public let stored: StoredMessage
    /// The message whose text matched: `stored` itself, or the latest edit of it. Its id is the paging
    /// cursor: the next page is `before:` the last hit's `matched`.
    public let matched: MessageID
    /// A few words around the matches of the matched text, cut into plain and matching parts.
    public let snippet: [SearchSnippetPart]
    /// What §13d's rules make of the message: set by the node's search, which reads it to keep only
    /// hits on the text a message shows, so front ends need not read it again.
    public var amendments: MessageAmendments = .none

    public init(stored: StoredMessage, matched: MessageID, snippet: [SearchSnippetPart]) {
        self.stored = stored
        self.matched = matched
        self.snippet = snippet
    }
}

/// A piece of a snippet: the words the search matched (`isMatch`), or the text between them.
public struct SearchSnippetPart: Sendable, Hashable {
    public let text: String
    public let isMatch: Bool

    public init(text: String, isMatch: Bool) {
        self.text = text
        self.isMatch = isMatch
    }
}
