/// What a "Poll" message asks, decided once from its content: a BBM yes/no question, or an options
/// poll whose content is the byte 0x00 and then its `PollSpec` (docs/POLLS.md).
public enum Poll: Hashable, Sendable {
    case yesNo(question: String)
    case options(PollSpec)

    /// Throws for content that starts as an options poll but does not decode: such a poll is shown
    /// as an error and never tallied.
    public init(content: [UInt8]) throws(CoreError) {
        if let spec = try PollSpec.decode(content: content) {
            self = .options(spec)
        } else {
            self = .yesNo(question: String(decoding: content, as: UTF8.self))
        }
    }

    /// The poll `message` asks; throws if it is not a "Poll" or its options do not decode.
    public init(_ message: Message) throws(CoreError) {
        guard message.tag == .poll else { throw .invalid("message \(message.id.shortHex) is not a poll") }
        try self.init(content: message.content)
    }

    public var question: String {
        switch self {
        case let .yesNo(question): question
        case let .options(spec): spec.question
        }
    }

    public var spec: PollSpec? { if case let .options(spec) = self { spec } else { nil } }
}
