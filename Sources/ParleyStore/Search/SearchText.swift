import ParleyCore

/// What the search index holds for a message, and how the user's words become an FTS5 query.
enum SearchText {
    /// The tags whose plaintext is indexed. An edit's text is indexed as its own row and found as its
    /// target (`MessageStore.search`); `Edit` is the amendment tag of PROTOCOL.md §13d.
    static let indexedTags: Set<String> = [Tag.text.rawValue, Tag.custom.rawValue, Tag.poll.rawValue, editTag]
    static let editTag = Tag.edit.rawValue
    /// The same, as SQL literals for `tag IN (…)` (tags are words: no quote to escape).
    static let indexedTagList = indexedTags.sorted().map { "'\($0)'" }.joined(separator: ", ")

    /// Where a snippet's match begins and ends. Control characters, stripped from every indexed text, so
    /// nothing a peer wrote can pose as a marker.
    static let matchStart: Character = "\u{1}"
    static let matchEnd: Character = "\u{2}"

    /// The text to index for a message of an indexed tag, from its opened content; nil when there is none.
    static func body(tag: String, plaintext: [UInt8]) -> String? {
        guard !plaintext.isEmpty else { return nil }
        let text: String
        if tag == Tag.poll.rawValue {
            // A poll is found by its question, description and options; one that does not decode, by none.
            guard let poll = try? Poll(content: plaintext) else { return nil }
            let spec = poll.spec
            text = ([poll.question, spec?.description ?? ""] + (spec?.options ?? [])).filter { !$0.isEmpty }
                .joined(separator: "\n")
        } else {
            text = String(decoding: plaintext, as: UTF8.self)
        }
        let cleaned = String(text.map { $0 == matchStart || $0 == matchEnd ? " " : $0 })
        return cleaned.isEmpty ? nil : cleaned
    }

    /// The user's text as an FTS5 query: every word that holds a letter or a digit becomes a quoted
    /// prefix phrase (`"word"*`, quotes inside doubled), all of them required. The text is never FTS5
    /// syntax itself, so no operator, quote or bracket it holds can change or break the query; nil when
    /// no word is left to look for.
    static func matchQuery(_ text: String) -> String? {
        // Control characters (a NUL among them) separate words too: none reaches the FTS5 parser.
        let separates = { (character: Character) in
            character.isWhitespace || character.unicodeScalars.contains { $0.properties.generalCategory == .control }
        }
        let words = text.split(whereSeparator: separates).filter { word in
            word.unicodeScalars.contains { $0.properties.isAlphabetic || $0.properties.numericType != nil }
        }
        guard !words.isEmpty else { return nil }
        let quoted = words.map { word in word.reduce(into: "") { $0 += $1 == "\"" ? "\"\"" : String($1) } }
        return quoted.map { "\"\($0)\"*" }.joined(separator: " ")
    }

    /// A snippet as SQLite's `snippet()` marks it, cut into plain and matching parts.
    static func parts(ofSnippet snippet: String) -> [SearchSnippetPart] {
        var parts: [SearchSnippetPart] = []
        var current = ""
        var matching = false
        for character in snippet {
            if character == matchStart || character == matchEnd {
                if !current.isEmpty { parts.append(SearchSnippetPart(text: current, isMatch: matching)) }
                current = ""
                matching = character == matchStart
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { parts.append(SearchSnippetPart(text: current, isMatch: matching)) }
        return parts
    }
}
