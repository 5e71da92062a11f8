/// What a "Poll" message asks, decided once from its content: a BBM yes/no question, or an options
/// poll whose content is the byte 0x00 and then its `PollSpec` (docs/POLLS.md).
public enum Poll: Hashable, Sendable {
    case yesNo(question: String)
    case options(PollSpec)
    /// A secret poll (docs/BALLOTS.md): content 0x00, version 2.
    case secret(SecretPoll)

    /// Throws for content that starts as an options poll but does not decode: such a poll is shown
    /// as an error and never tallied.
    public init(content: [UInt8]) throws(CoreError) {
        if let secret = try SecretPoll.decode(content: content) {
            self = .secret(secret)
        } else if let spec = try PollSpec.decode(content: content) {
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
        case let .secret(secret): secret.text
        }
    }

    /// The settings of an options poll, secret or not.
    public var spec: PollSpec? {
        switch self {
        case .yesNo: nil
        case let .options(spec): spec
        case let .secret(secret): if case let .options(spec) = secret.question { spec } else { nil }
        }
    }

    public var secret: SecretPoll? { if case let .secret(secret) = self { secret } else { nil } }

    /// When voting ends, if it does.
    public var closesAtMillis: Int64? { secret?.closesAtMillis ?? spec?.closesAtMillis }
}
