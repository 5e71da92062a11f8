/// Direct chats are between exactly two people and never change members; groups have a creator
/// who adds and removes members (`MembershipChange`).
public enum ChatKind: String, Sendable, Hashable, Codable, CaseIterable {
    case direct, group

    var wireValue: UInt8 {
        switch self {
        case .direct: 1
        case .group: 2
        }
    }

    init(wireValue: UInt8) throws(CoreError) {
        switch wireValue {
        case 1: self = .direct
        case 2: self = .group
        default: throw .malformed("unknown chat kind \(wireValue)")
        }
    }
}
