import ParleyCore

/// The highest message stored in each author lane, as far as this node's receive path has seen, for
/// the fork check after each batch (`Node.proveForks`): live traffic extends a lane one batch after
/// another, so the message below a batch's first one is nearly always the one noted here, and its link
/// is checked without reading the store (a read transaction per batch held back the WAL's checkpoints
/// and cost the 2-node profile about a quarter of its throughput). Anything else is read.
struct LaneTops: Sendable {
    struct Top: Sendable {
        let sequence: UInt64
        let id: MessageID
    }

    /// More lanes than this and the notes start over (they are only a shortcut).
    static let capacity = 65_536
    private var tops: [AuthorLane: Top] = [:]

    func top(of lane: AuthorLane) -> Top? { tops[lane] }

    /// Notes `message` as its lane's top when it is above the one noted (or none is).
    mutating func note(_ message: Message) {
        let lane = AuthorLane(of: message)
        if let known = tops[lane], known.sequence >= message.sequence { return }
        if tops.count >= Self.capacity, tops[lane] == nil { tops.removeAll(keepingCapacity: true) }
        tops[lane] = Top(sequence: message.sequence, id: message.id)
    }
}
