/// Finds links in message text: http(s) URLs (a scheme at a word start) and bare web addresses
/// starting with "www." at a word start, then everything up to whitespace or a character URLs
/// never hold unescaped; trailing sentence punctuation and unbalanced closing brackets are not part
/// of the link ("see (https://a.b/c)." gives "https://a.b/c").
///
/// A "www." address is given with "https://" in front ("see www.swift.org" gives
/// "https://www.swift.org"): the scheme browsers try first for a typed address. The message text
/// itself keeps what its author wrote.
public enum LinkDetector {
    private static let schemes = ["https://", "http://"]
    private static let webPrefix = "www."
    /// What a "www." address is given as a link with.
    private static let addedScheme = "https://"
    /// Characters that end a URL in running text (RFC 3986 excludes them unescaped).
    private static let terminators: Set<Character> = ["<", ">", "\"", "`", "{", "}", "|", "\\", "^"]
    private static let trailingPunctuation: Set<Character> = [".", ",", ";", ":", "!", "?", "'", "*"]
    private static let closing: [Character: Character] = [")": "(", "]": "["]
    /// Characters that glue a "www." to what precedes it: part of an address or path ("a.www.b",
    /// "x/www.y", "me@www.z"), so not the start of a web address.
    private static let addressJoiners: Set<Character> = [".", "/", "@", "-", "_", ":", "~", "%", "+", "="]

    /// Whether `text` contains at least one link.
    public static func containsLink(_ text: String) -> Bool { !links(in: text).isEmpty }

    /// The links in `text`, in order of appearance (repeats kept); "www." addresses with "https://" added.
    public static func links(in text: String) -> [String] {
        var found: [String] = []
        var index = text.startIndex
        while index < text.endIndex {
            // Only an "h" or a "w" can start a link: the common case costs two comparisons per character.
            let first = text[index]
            if first == "h" || first == "H", let scheme = scheme(at: index, in: text), atWordStart(index, in: text) {
                let end = linkEnd(from: text.index(index, offsetBy: scheme.count), in: text)
                let link = trimmed(text[index..<end])
                if link.count > scheme.count, !link.dropFirst(scheme.count).hasPrefix("/") {
                    found.append(String(link))
                }
                index = end
            } else if first == "w" || first == "W", startsWebAddress(at: index, in: text) {
                let end = linkEnd(from: text.index(index, offsetBy: webPrefix.count), in: text)
                let link = trimmed(text[index..<end])
                // Something must follow "www." and start a host name: "www." alone, "www..x" are not addresses.
                if let host = link.dropFirst(webPrefix.count).first, host.isLetter || host.isNumber {
                    found.append(addedScheme + link)
                }
                index = end
            } else {
                index = text.index(after: index)
            }
        }
        return found
    }

    private static func scheme(at index: String.Index, in text: String) -> String? {
        schemes.first { scheme in
            text[index...].prefix(scheme.count).lowercased() == scheme
        }
    }

    /// "www." (any case) at a word start that is not glued to a preceding address.
    private static func startsWebAddress(at index: String.Index, in text: String) -> Bool {
        guard text[index...].prefix(webPrefix.count).lowercased() == webPrefix, atWordStart(index, in: text) else {
            return false
        }
        guard index > text.startIndex else { return true }
        return !addressJoiners.contains(text[text.index(before: index)])
    }

    /// Where a link whose body starts at `start` ends: at whitespace, a terminator or the text's end.
    private static func linkEnd(from start: String.Index, in text: String) -> String.Index {
        var end = start
        while end < text.endIndex, !text[end].isWhitespace, !terminators.contains(text[end]) {
            end = text.index(after: end)
        }
        return end
    }

    /// A link glued to a preceding letter or digit ("xhttp://", "awww.") is not a link.
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
            } else if let opening = closing[last],
                link.count(where: { $0 == opening }) < link.count(where: { $0 == last })
            {
                link = link.dropLast()
            } else {
                break
            }
        }
        return link
    }
}
