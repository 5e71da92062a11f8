public import ParleyNode
import Foundation
public import ParleyCore
public import ParleyCrypto

/// A chat member with presence, for `members`. `lastSeenAt` (Unix ms: the member's own clock for its
/// beats and messages, this node's for other traffic from it) is set only when it is offline and was
/// ever heard from. `via` (and its contact name, `viaName`) is
/// set when the member shows online only through another member relaying its beats: this node has
/// no session with it, so its messages too come through the others' sync. `forkedFrom` is set when
/// the member is proven to have signed two histories in the chat (PROTOCOL.md §4.4): its sequence
/// from which its messages there count for nothing.
public struct MemberPresenceView: Codable, Sendable, Hashable {
    public let id: String
    public let name: String?
    public let online: Bool
    public let lastSeenAt: Int64?
    public let you: Bool
    public let via: String?
    public let viaName: String?
    public let forkedFrom: UInt64?

    public init(_ member: MemberPresence, names: [PeerID: String], me: PeerID, forks: ChatForks = .none) {
        id = member.peer.hex
        forkedFrom = forks.forkedFrom[member.peer]
        name = names[member.peer]
        you = member.peer == me
        via = member.via?.hex
        viaName = member.via.flatMap { names[$0] }
        switch member.status {
        case .online: (online, lastSeenAt) = (true, nil)
        case let .offline(lastSeen): (online, lastSeenAt) = (false, lastSeen)
        }
    }

    /// By name, case-insensitively; unnamed members last, by id.
    static func ordered(_ lhs: Self, _ rhs: Self) -> Bool {
        switch (lhs.name, rhs.name) {
        case let (left?, right?):
            let order = left.localizedCaseInsensitiveCompare(right)
            return order == .orderedSame ? lhs.id < rhs.id : order == .orderedAscending
        case (.some, nil): return true
        case (nil, .some): return false
        case (nil, nil): return lhs.id < rhs.id
        }
    }
}

/// The answer to `typing`: how many connected members the indicator went to.
public struct TypingSentView: Codable, Sendable, Hashable {
    public let chat: String
    public let active: Bool
    public let recipients: Int
}
