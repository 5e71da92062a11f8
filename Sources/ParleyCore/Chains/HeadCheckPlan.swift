/// Which heads of a delivery need their signature checked (PROTOCOL.md §4.1, "covered heads").
///
/// A head that a later message of the same delivery names as its `previous`, through a run of linked
/// messages up to a head whose signature is checked, is vouched for by that head: the hash chain proves
/// its body is the author's, so its own signature adds nothing. A returning member catching up on
/// messages typed one at a time (each its own signed head) would otherwise verify every one of them.
///
/// Covered heads are stored chained (signature dropped). So that every chained run a receiver later
/// serves still reaches a head soon (sync extends a reply by up to 256 messages to the next head), the
/// plan keeps and checks a head when the one above is `spacing` sequences away or more: a stored
/// chained message then has a head at most 2 × `spacing` − 1 sequences above it. When a checked head
/// fails, the heads it covered are checked one by one instead: a hostile relayer costs verifications,
/// never an honest message.
public struct HeadCheckPlan: Sendable {
    /// The most sequences a covered head sits below the checked head vouching for it.
    public static let spacing: UInt64 = 64

    /// Indices (into the planned messages) of the heads whose signature is checked.
    public private(set) var checked: [Int] = []
    /// Index of a covered head → index of the checked head whose chain vouches for it.
    public private(set) var covered: [Int: Int] = [:]

    public init(_ messages: [Message]) {
        var byAuthor: [AuthorLane: [Int]] = [:]
        for (index, message) in messages.enumerated() {
            byAuthor[AuthorLane(of: message), default: []].append(index)
        }
        for indices in byAuthor.values { plan(indices, of: messages) }
    }

    /// One author's messages in one chat. A sequence held twice (a fork, or a forgery beside the real
    /// one) stops all covering for the author: each of its heads is checked on its own.
    private mutating func plan(_ indices: [Int], of messages: [Message]) {
        let descending = indices.sorted { messages[$0].sequence > messages[$1].sequence }
        let forked = zip(descending, descending.dropFirst()).contains { messages[$0].sequence == messages[$1].sequence }
        var checker: (index: Int, sequence: UInt64)?
        var above: Message?
        for index in descending {
            let message = messages[index]
            let linked =
                !forked && above.map { $0.sequence == message.sequence &+ 1 && $0.previous == message.id } == true
            if !linked { checker = nil }
            above = message
            guard message.isHead else { continue }
            if let current = checker, current.sequence - message.sequence < Self.spacing {
                covered[index] = current.index
            } else {
                checked.append(index)
                checker = (index, message.sequence)
            }
        }
    }
}

extension Message {
    /// The same message without its signature: a link that a verified head above it vouches for. The
    /// id does not change.
    public var withoutSignature: Message {
        guard isHead else { return self }
        return Message(draft: draft, signature: nil, encoded: Array(body) + [0], id: id)
    }
}
