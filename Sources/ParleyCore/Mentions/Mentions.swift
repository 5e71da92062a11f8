import Foundation
public import ParleyCrypto

/// Mentions (PROTOCOL.md §13d): `@name` is resolved to a member's id when the text is sent, and
/// travels as the token `<@` + the id's 64 lower-case hex digits + `>` inside the Text content, so
/// renaming a contact changes how a mention shows, never whom it names.
public enum Mentions {
    static let open = "<@"
    static let close = ">"
    static let hexDigits = 64

    /// The text with each `@name` of a member (case-insensitive, the longest name first, not followed
    /// by a letter or digit) replaced by that member's token. Unknown names stay as typed.
    public static func resolving(_ text: String, members: [(id: PeerID, name: String)]) -> String {
        let candidates = members.filter { !$0.name.isEmpty }.sorted { $0.name.count > $1.name.count }
        guard !candidates.isEmpty, text.contains("@") else { return text }
        var result = ""
        var rest = Substring(text)
        while let at = rest.firstIndex(of: "@") {
            result += rest[..<at]
            let afterAt = rest[rest.index(after: at)...]
            let hit = candidates.first { member in
                guard let range = afterAt.range(of: member.name, options: [.caseInsensitive, .anchored]) else {
                    return false
                }
                return range.upperBound == afterAt.endIndex
                    || !(afterAt[range.upperBound].isLetter || afterAt[range.upperBound].isNumber)
            }
            if let hit, let range = afterAt.range(of: hit.name, options: [.caseInsensitive, .anchored]) {
                result += token(for: hit.id)
                rest = afterAt[range.upperBound...]
            } else {
                result += "@"
                rest = afterAt
            }
        }
        return result + rest
    }

    public static func token(for peer: PeerID) -> String { open + peer.hex + close }

    /// The members a text mentions, in order of first mention, each once.
    public static func mentioned(in text: String) -> [PeerID] {
        var found: [PeerID] = []
        forEachPiece(of: text) { piece in
            if case let .mention(peer) = piece, !found.contains(peer) { found.append(peer) }
        }
        return found
    }

    /// The text as people read it: each token as `@` + the member's name.
    public static func rendered(_ text: String, name: (PeerID) -> String) -> String {
        guard text.contains(open) else { return text }
        var result = ""
        forEachPiece(of: text) { piece in
            switch piece {
            case let .text(plain): result += plain
            case let .mention(peer): result += "@" + name(peer)
            }
        }
        return result
    }

    enum Piece {
        case text(Substring)
        case mention(PeerID)
    }

    /// Splits a text into plain runs and well-formed tokens; anything else that starts like one is text.
    static func forEachPiece(of text: String, _ body: (Piece) -> Void) {
        var rest = Substring(text)
        while let start = rest.range(of: open) {
            let digits = rest[start.upperBound...].prefix(hexDigits)
            let end = digits.endIndex
            if digits.count == hexDigits, rest[end...].hasPrefix(close),
                digits.allSatisfy({ $0.isHexDigit && !$0.isUppercase }),
                let bytes = try? Hex.decode(digits), let peer = try? PeerID(rawRepresentation: bytes)
            {
                body(.text(rest[..<start.lowerBound]))
                body(.mention(peer))
                rest = rest[rest.index(after: end)...]
            } else {
                body(.text(rest[..<start.upperBound]))
                rest = rest[start.upperBound...]
            }
        }
        body(.text(rest))
    }
}
