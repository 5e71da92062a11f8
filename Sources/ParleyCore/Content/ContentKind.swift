import Foundation

/// What a message is, for display: decided from its tag and content alone. Unknown tags are
/// stored and synced like any message, but not shown, as in BBM.
public struct ContentKind: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    private init(_ rawValue: String) { self.rawValue = rawValue }

    /// A "Text" message without links.
    public static let text = ContentKind("text")
    /// A "Text" message containing http(s) URLs or "www." addresses (`LinkDetector`).
    public static let link = ContentKind("link")
    /// A "Custom" message: a JSON object or array.
    public static let custom = ContentKind("custom")
    public static let poll = ContentKind("poll")
    /// A ballot, answer, suggestion or close on a poll: shown through the poll's tally.
    public static let vote = ContentKind("vote")
    public static let reaction = ContentKind("reaction")
    /// A member change in a chat: shown as a system line.
    public static let membership = ContentKind("membership")
    /// An edit, deletion or pin of another message: shown through that message (§13d).
    public static let amendment = ContentKind("amendment")
    /// A message deleted for everyone: shown as a tombstone, its content no longer shown anywhere.
    public static let deleted = ContentKind("deleted")
    /// A "File" message: a file or picture by its manifest (§13e).
    public static let file = ContentKind("file")
    public static let unknown = ContentKind("unknown")

    public init(tag: Tag, content: [UInt8]) {
        switch tag {
        case .text: self = LinkDetector.containsLink(String(decoding: content, as: UTF8.self)) ? .link : .text
        case .custom: self = .custom
        case .poll: self = .poll
        case .pollVote, .pollVoteUp, .pollVoteDown, .pollClose, .pollAnswer, .pollSuggestion, .pollSecretBallot,
            .pollBallotCommit, .pollBallotReveal:
            self = .vote
        case .reaction: self = .reaction
        case .membership: self = .membership
        case .edit, .delete, .pin: self = .amendment
        case .file: self = .file
        default: self = .unknown
        }
    }

    /// Whether a chat's message list shows messages of this kind as lines of their own.
    public var isShown: Bool { Self.shown.contains(self) }
    private static let shown: Set<ContentKind> = [.text, .link, .custom, .poll, .membership, .file]

    /// The tags whose messages are shown: what a default message list and an unread count select.
    public static let shownTags: [Tag] = [.text, .custom, .poll, .membership, .file]

    /// Throws unless `content` is a JSON object or array (UTF-8), as a Custom message must be.
    public static func validateCustom(_ content: [UInt8]) throws(CoreError) {
        let value: Any
        do { value = try JSONSerialization.jsonObject(with: Data(content)) } catch {
            throw .invalid("custom content must be valid JSON (an object or an array): \(Self.reason(error))")
        }
        guard value is [Any] || value is [String: Any] else {
            throw .invalid("custom content must be a JSON object or an array, not a single value")
        }
    }

    private static func reason(_ error: any Error) -> String {
        (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "not parseable"
    }

    public var description: String { rawValue }
}
