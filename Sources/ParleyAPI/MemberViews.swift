public import ParleyNode
import Foundation
public import ParleyCore
public import ParleyCrypto

/// A chat member with presence, for `members`. `lastSeenAt` (Unix ms, the member's own clock) is
/// set only when it is offline and was ever heard from.
public struct MemberPresenceView: Codable, Sendable, Hashable {
    public let id: String
    public let name: String?
    public let online: Bool
    public let lastSeenAt: Int64?
    public let you: Bool

    public init(_ member: MemberPresence, names: [PeerID: String], me: PeerID) {
        id = member.peer.hex
        name = names[member.peer]
        you = member.peer == me
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
