public import ParleyCore

/// Failures of node operations: a kind a caller can tell apart, and a message meant for the person
/// at the CLI or the page (as `NIOSSHError` pairs its `type` with a description).
public struct NodeError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// No such chat, message, contact or option.
        case notFound
        /// The request cannot be carried out as asked: bad input, or a rule refuses it.
        case invalid
        /// This node's user is not (or no longer) a member of the chat.
        case notAMember
        /// The message named as a poll is not one.
        case notAPoll
        /// This user already voted on the yes/no poll.
        case alreadyVoted
        /// A send hook refused the message.
        case vetoed
    }

    public let kind: Kind
    public let description: String

    private init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    public static func notFound(_ what: String) -> NodeError { NodeError(.notFound, what) }
    public static func invalid(_ reason: String) -> NodeError { NodeError(.invalid, reason) }
    public static func notAPoll(_ id: MessageID) -> NodeError { NodeError(.notAPoll, "message \(id.shortHex) is not a poll") }
    public static func alreadyVoted(_ poll: MessageID, choice: String) -> NodeError {
        NodeError(.alreadyVoted, "you already voted \(choice) on poll \(poll.shortHex); a second vote is refused")
    }
    public static func vetoed(_ reason: String) -> NodeError { NodeError(.vetoed, "the message was vetoed: \(reason)") }
    public static func notAMember(_ chat: ChatID) -> NodeError { NodeError(.notAMember, "you are not a member of chat \(chat.shortHex)") }
}
