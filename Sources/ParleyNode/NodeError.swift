public import ParleyCore

/// Failures of node operations: a kind a caller can tell apart, and a message meant for the person
/// at the CLI or the page (as `NIOSSHError` pairs its `type` with a description).
public struct NodeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of failure a caller can tell apart.
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
        /// This user is not in the secret poll's electorate (joined after it was posted).
        case notInElectorate
        /// A secret poll's electorate is refused (too few to hide a vote, or a key or member that does
        /// not belong): no ballot is cast into it, and a chat too small gets no secret poll.
        case refusedElectorate
        /// A file above this node's cap, or a file store full even after evicting what may go (§13e).
        case fileTooLarge
        /// A file whose bytes this node does not hold (yet): fetch it first.
        case fileNotHeld
    }

    /// What went wrong, for a caller to branch on.
    public let kind: Kind
    /// A one-line message for the person using the app.
    public let description: String

    private init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// No such chat, message, contact or option.
    public static func notFound(_ what: String) -> NodeError { NodeError(.notFound, what) }
    /// Bad input, or a rule refuses the request.
    public static func invalid(_ reason: String) -> NodeError { NodeError(.invalid, reason) }
    /// The message named as a poll is not one.
    public static func notAPoll(_ id: MessageID) -> NodeError {
        NodeError(.notAPoll, "message \(id.shortHex) is not a poll")
    }
    /// This user already voted `choice` on the yes/no poll.
    public static func alreadyVoted(_ poll: MessageID, choice: String) -> NodeError {
        NodeError(.alreadyVoted, "you already voted \(choice) on poll \(poll.shortHex); a second vote is refused")
    }
    /// A send hook refused the message, for `reason`.
    public static func vetoed(_ reason: String) -> NodeError { NodeError(.vetoed, "the message was vetoed: \(reason)") }
    /// This user is not among the electors a secret poll lists.
    public static func notInElectorate(_ poll: MessageID, electors: Int) -> NodeError {
        NodeError(
            .notInElectorate,
            "you are not in the electorate of secret poll \(poll.shortHex): its \(electors) electors are the members whose ballot keys its creator held when it was posted"
        )
    }
    /// The secret poll's electorate is refused on every node (`SecretPollRules.electorateProblem`, a
    /// final problem: `ElectorateProblem.isFinal`).
    public static func refusedElectorate(_ poll: MessageID, _ problem: ElectorateProblem) -> NodeError {
        switch problem {
        case let .tooFewToHide(others):
            NodeError(
                .refusedElectorate,
                "only \(others) other member\(others == 1 ? "" : "s") could hide your vote on secret poll \(poll.shortHex); a secret ballot needs at least \(SecretPoll.minHidingElectors) besides the creator"
            )
        case .notAMember, .unpublishedKey:
            NodeError(
                .refusedElectorate,
                "secret poll \(poll.shortHex) is refused on every node, so no ballot is cast into it: \(problem)")
        }
    }
    /// A secret poll here would list too few members besides its creator for a vote to hide among.
    public static func tooFewToHide(_ chat: ChatID, others: Int) -> NodeError {
        NodeError(
            .refusedElectorate,
            "a secret poll needs at least \(SecretPoll.minHidingElectors) members besides you with ballot keys, so each vote hides among them; chat \(chat.shortHex) has \(others)"
        )
    }
    /// A file of `size` bytes is above `limit` (what it is: the per-file cap or the store's room).
    public static func fileTooLarge(_ what: String) -> NodeError { NodeError(.fileTooLarge, what) }
    /// This node holds no whole copy of the file.
    public static func fileNotHeld(_ file: MessageID, _ why: String) -> NodeError {
        NodeError(.fileNotHeld, "file \(file.shortHex) is not on this node: \(why)")
    }
    /// This node's user is not a member of the chat.
    public static func notAMember(_ chat: ChatID) -> NodeError {
        NodeError(.notAMember, "you are not a member of chat \(chat.shortHex)")
    }
}
