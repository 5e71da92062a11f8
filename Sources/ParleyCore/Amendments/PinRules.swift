/// The pinned state of a message (PROTOCOL.md §13d): any member may pin or unpin a shown message;
/// the latest pin or unpin in history order (`HistoryPosition` of each message's own clock: between members no chain orders them) decides, on every node alike.
public enum PinRules {
    /// The tags whose messages can be pinned: what a chat shows as a line of its own.
    public static let pinnableTags: Set<Tag> = [.text, .custom, .poll, .file]

    /// Why a pin or unpin of `target` does not count, or nil when it does.
    public static func refusal(of pin: Message, target: Message) -> AmendmentRefusal? {
        guard pin.chat == target.chat else { return .otherChat }
        guard pinnableTags.contains(target.tag) else { return .notPinnable }
        guard PinContent(pin.content) != nil else { return .malformed }
        return nil
    }

    /// The counting pin of `target` (its author pinned it), or nil when it is not pinned.
    public static func pin(of target: Message, among candidates: some Sequence<Message>) -> Message? {
        let latest = candidates.filter { message in
            message.tag == .pin && AmendmentTarget.of(message, tag: .pin) == target.id
                && refusal(of: message, target: target) == nil
        }.max { HistoryPosition($0) < HistoryPosition($1) }
        return latest.flatMap { PinContent($0.content) == .pin ? $0 : nil }
    }
}

/// A `Pin` message's content: one byte.
public enum PinContent: UInt8, Sendable {
    case unpin = 0x00
    case pin = 0x01

    /// nil for anything but exactly one known byte: such a message changes nothing.
    public init?(_ content: [UInt8]) {
        guard content.count == 1, let value = PinContent(rawValue: content[0]) else { return nil }
        self = value
    }

    public var encoded: [UInt8] { [rawValue] }
}
