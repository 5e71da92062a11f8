public import ParleyCore

/// Failures of node operations, with messages meant for the person at the CLI.
public struct NodeError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String
    private init(_ description: String) { self.description = description }

    public static func notFound(_ what: String) -> NodeError { NodeError(what) }
    public static func invalid(_ reason: String) -> NodeError { NodeError(reason) }
    public static func notAPoll(_ id: MessageID) -> NodeError { NodeError("message \(id.shortHex) is not a poll") }
    public static func alreadyVoted(_ poll: MessageID, choice: String) -> NodeError {
        NodeError("you already voted \(choice) on poll \(poll.shortHex); a second vote is refused")
    }
    public static func vetoed(_ reason: String) -> NodeError { NodeError("the message was vetoed: \(reason)") }
    public static func notAMember(_ chat: ChatID) -> NodeError { NodeError("you are not a member of chat \(chat.shortHex)") }
}
