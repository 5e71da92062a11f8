/// How groups are ordered; every order ends with the type's bytes, ascending.
public enum ReactionSort: String, Sendable, CaseIterable, Codable {
    /// Most reactions first.
    case count
    /// Highest score sum first, then most reactions.
    case score
    /// Earliest first reaction first.
    case first
    /// Most recent last reaction first.
    case last

    func precedes(_ lhs: ReactionGroup, _ rhs: ReactionGroup) -> Bool {
        switch self {
        case .count where lhs.count != rhs.count: return lhs.count > rhs.count
        case .score where lhs.score != rhs.score: return lhs.score > rhs.score
        case .score where lhs.count != rhs.count: return lhs.count > rhs.count
        case .first where lhs.firstAtMillis != rhs.firstAtMillis: return lhs.firstAtMillis < rhs.firstAtMillis
        case .last where lhs.lastAtMillis != rhs.lastAtMillis: return lhs.lastAtMillis > rhs.lastAtMillis
        default: return lhs.type < rhs.type
        }
    }
}
