/// How the CLI and the full screen tell a user that members signed two histories in a chat (fork
/// proofs, PROTOCOL.md §4.4): from the forked sequence on, such a member's messages there count for
/// nothing and are not shown. Names come from peers: each goes through `SafeText.singleLine`.
public enum ForkNotice {
    /// A forked member as the views give it: its id (hex), its name if known, and the sequence of
    /// its own chain from which its messages count for nothing.
    public struct Member: Hashable, Sendable {
        public var id: String
        public var name: String?
        public var fromSequence: UInt64

        public init(id: String, name: String?, fromSequence: UInt64) {
            self.id = id
            self.name = name
            self.fromSequence = fromSequence
        }
    }

    /// The member as shown: its name on one line, else its id's first 8 hex digits.
    public static func name(_ member: Member) -> String {
        member.name.map(SafeText.singleLine) ?? String(member.id.prefix(8))
    }

    /// "mallory", "mallory and bob", "mallory, bob and carol".
    static func list(_ members: [Member]) -> String {
        let names = members.map(name)
        guard let last = names.last else { return "" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " and " + last
    }

    /// A chat's mark in lists: "⚠ mallory signed two histories"; nil when nobody forked.
    public static func mark(_ members: [Member]) -> String? {
        members.isEmpty ? nil : "⚠ \(list(members)) signed two histories"
    }

    /// A member's mark in a member list, after its name. "Message 5" is the member's own fifth
    /// message (its chain's sequence), not the chat's "#N" numbering.
    public static func memberMark(fromSequence: UInt64) -> String {
        "⚠ signed two histories from their message \(fromSequence): their messages from then on count for nothing"
    }

    /// One line about the whole chat, for the note under `parley messages` and the full screen's
    /// warning line: "mallory signed two histories from their message 5: …"; nil when nobody forked.
    public static func notice(_ members: [Member]) -> String? {
        guard !members.isEmpty else { return nil }
        guard members.count > 1 else {
            return "\(name(members[0])) signed two histories from their message \(members[0].fromSequence): "
                + "their messages from then on count for nothing and are not shown"
        }
        return
            "\(list(members)) signed two histories: their messages from each one's fork on count for nothing and are not shown"
    }
}
