/// Finds http(s) URLs in message text: a scheme at a word start, then everything up to whitespace
/// or a character URLs never hold unescaped; trailing sentence punctuation and unbalanced closing
/// brackets are not part of the link ("see (https://a.b/c)." gives "https://a.b/c").
public enum LinkDetector {
    private static let schemes = ["https://", "http://"]
    /// Characters that end a URL in running text (RFC 3986 excludes them unescaped).
    private static let terminators: Set<Character> = ["<", ">", "\"", "`", "{", "}", "|", "\\", "^"]
    private static let trailingPunctuation: Set<Character> = [".", ",", ";", ":", "!", "?", "'", "*"]
    private static let closing: [Character: Character] = [")": "(", "]": "["]

    /// Whether `text` contains at least one link.
    public static func containsLink(_ text: String) -> Bool { !links(in: text).isEmpty }

    /// The links in `text`, in order of appearance (repeats kept).
    public static func links(in text: String) -> [String] {
        var found: [String] = []
        var index = text.startIndex
        while index < text.endIndex {
            // Only an "h" can start a link: the common case costs one comparison per character.
            guard text[index] == "h" || text[index] == "H", let scheme = scheme(at: index, in: text), atWordStart(index, in: text) else {
                index = text.index(after: index)
                continue
            }
            var end = text.index(index, offsetBy: scheme.count)
            while end < text.endIndex, !text[end].isWhitespace, !terminators.contains(text[end]) { end = text.index(after: end) }
            let link = trimmed(text[index..<end])
            if link.count > scheme.count, !link.dropFirst(scheme.count).hasPrefix("/") { found.append(String(link)) }
            index = end
        }
        return found
    }

    private static func scheme(at index: String.Index, in text: String) -> String? {
        schemes.first { scheme in
            text[index...].prefix(scheme.count).lowercased() == scheme
        }
    }

    /// A scheme glued to a preceding letter or digit ("xhttp://") is not a link.
    private static func atWordStart(_ index: String.Index, in text: String) -> Bool {
        guard index > text.startIndex else { return true }
        let previous = text[text.index(before: index)]
        return !(previous.isLetter || previous.isNumber)
    }

    private static func trimmed(_ candidate: Substring) -> Substring {
        var link = candidate
        while let last = link.last {
            if trailingPunctuation.contains(last) {
                link = link.dropLast()
            } else if let opening = closing[last], link.count(where: { $0 == opening }) < link.count(where: { $0 == last }) {
                link = link.dropLast()
            } else {
                break
            }
        }
        return link
    }
}
