import NIOCore

/// The settings of a poll, carried in its "Poll" message's content.
///
/// A yes/no poll's content is just the question (UTF-8). An options poll's content starts with
/// the byte 0x00, which no question may contain, followed by this binary encoding (docs/POLLS.md).
public struct PollSpec: Hashable, Sendable {
    public static let maxOptions = 32
    /// Spec options plus accepted suggestions.
    public static let maxTotalOptions = 64
    public static let maxOptionBytes = 200
    public static let maxQuestionBytes = 1_000
    public static let maxDescriptionBytes = 4_000

    public var question: String
    public var description: String
    public var options: [String]
    /// How many options one ballot may select; nil means as many as there are.
    public var maxVotes: Int?
    /// One option per ballot; a new vote replaces the previous one.
    public var unique: Bool
    public var anonymous: Bool
    public var allowAnswers: Bool
    public var allowSuggestions: Bool
    public var closesAtMillis: Int64?

    public init(
        question: String, description: String = "", options: [String], maxVotes: Int? = nil, unique: Bool = false,
        anonymous: Bool = false, allowAnswers: Bool = false, allowSuggestions: Bool = false,
        closesAtMillis: Int64? = nil
    ) {
        self.question = question
        self.description = description
        self.options = options
        self.maxVotes = maxVotes
        self.unique = unique
        self.anonymous = anonymous
        self.allowAnswers = allowAnswers
        self.allowSuggestions = allowSuggestions
        self.closesAtMillis = closesAtMillis
    }

    /// How many options a ballot may select.
    public var selectionLimit: Int { unique ? 1 : (maxVotes ?? Self.maxTotalOptions) }

    /// The id of the i-th (0-based) option given at creation: "1", "2", …
    public static func optionID(index: Int) -> String { String(index + 1) }

    public func validate() throws(CoreError) {
        let question = question.trimmingWhitespace
        guard !question.isEmpty else { throw .invalid("a poll needs a question") }
        guard question.utf8.count <= Self.maxQuestionBytes else {
            throw .tooLarge("poll question", limit: Self.maxQuestionBytes, actual: question.utf8.count)
        }
        guard description.utf8.count <= Self.maxDescriptionBytes else {
            throw .tooLarge("poll description", limit: Self.maxDescriptionBytes, actual: description.utf8.count)
        }
        guard options.count >= 2 || (allowSuggestions && !options.isEmpty) else {
            throw .invalid("a poll needs at least two options (or one, with suggestions allowed)")
        }
        guard options.count <= Self.maxOptions else { throw .invalid("a poll has at most \(Self.maxOptions) options") }
        var seen = Set<String>()
        for option in options {
            try Self.validateOption(option)
            guard seen.insert(option.optionKey).inserted else { throw .invalid("option '\(option)' is listed twice") }
        }
        if let maxVotes {
            guard maxVotes >= 1, maxVotes <= Self.maxTotalOptions else {
                throw .invalid("--max-votes must be between 1 and \(Self.maxTotalOptions)")
            }
            guard !unique || maxVotes == 1 else {
                throw .invalid("--unique allows one vote; drop --max-votes or set it to 1")
            }
        }
        guard !(question + description + options.joined()).unicodeScalars.contains("\u{0}") else {
            throw .invalid("poll texts cannot contain NUL characters")
        }
    }

    public static func validateOption(_ text: String) throws(CoreError) {
        let trimmed = text.trimmingWhitespace
        guard !trimmed.isEmpty else { throw .invalid("an option cannot be empty") }
        guard trimmed.utf8.count <= maxOptionBytes else {
            throw .tooLarge("option", limit: maxOptionBytes, actual: trimmed.utf8.count)
        }
        guard !trimmed.unicodeScalars.contains("\u{0}") else {
            throw .invalid("an option cannot contain NUL characters")
        }
    }

    // MARK: Encoding

    static let marker: UInt8 = 0x00
    static let version: UInt8 = 1

    private struct Flags: OptionSet {
        let rawValue: UInt8
        static let unique = Flags(rawValue: 1)
        static let anonymous = Flags(rawValue: 2)
        static let allowAnswers = Flags(rawValue: 4)
        static let allowSuggestions = Flags(rawValue: 8)
        static let closes = Flags(rawValue: 16)
        static let all: Flags = [.unique, .anonymous, .allowAnswers, .allowSuggestions, .closes]
    }

    /// marker 0x00, version 1, flags u8, maxVotes u8 (0 = no limit), closesAt i64 (0 unless flagged),
    /// question (u16 length + UTF-8), description (u16 + UTF-8), option count u8, options (u8 + UTF-8 each).
    public func encoded() throws(CoreError) -> [UInt8] {
        try validate()
        var flags: Flags = []
        if unique { flags.insert(.unique) }
        if anonymous { flags.insert(.anonymous) }
        if allowAnswers { flags.insert(.allowAnswers) }
        if allowSuggestions { flags.insert(.allowSuggestions) }
        if closesAtMillis != nil { flags.insert(.closes) }
        var buffer = ByteBuffer()
        buffer.writeInteger(Self.marker)
        buffer.writeInteger(Self.version)
        buffer.writeInteger(flags.rawValue)
        buffer.writeInteger(UInt8(maxVotes ?? 0))
        buffer.writeInteger(closesAtMillis ?? 0, endianness: .big)
        buffer.writeLongString(question.trimmingWhitespace)
        buffer.writeLongString(description)
        buffer.writeInteger(UInt8(options.count))
        for option in options { buffer.writeShortString(option.trimmingWhitespace) }
        return Array(buffer.readableBytesView)
    }

    /// nil for a yes/no poll (content without the marker); throws for a malformed options poll.
    public static func decode(content: [UInt8]) throws(CoreError) -> PollSpec? {
        guard content.first == marker else { return nil }
        var buffer = ByteBuffer(bytes: content)
        _ = try buffer.readU8("poll marker")
        let version = try buffer.readU8("poll version")
        guard version == Self.version else { throw .malformed("unknown poll encoding version \(version)") }
        let flags = Flags(rawValue: try buffer.readU8("poll flags"))
        guard Flags.all.isSuperset(of: flags) else { throw .malformed("unknown poll flags") }
        let maxVotes = Int(try buffer.readU8("max votes"))
        let closesAt = try buffer.readI64("closes at")
        let question = try buffer.readLongString("question")
        let description = try buffer.readLongString("description")
        let count = Int(try buffer.readU8("option count"))
        var options: [String] = []
        for _ in 0..<count { options.append(try buffer.readShortString("option")) }
        try buffer.expectFullyRead("poll")
        let spec = PollSpec(
            question: question, description: description, options: options, maxVotes: maxVotes == 0 ? nil : maxVotes,
            unique: flags.contains(.unique), anonymous: flags.contains(.anonymous),
            allowAnswers: flags.contains(.allowAnswers),
            allowSuggestions: flags.contains(.allowSuggestions),
            closesAtMillis: flags.contains(.closes) ? closesAt : nil)
        try spec.validate()
        return spec
    }
}

extension String {
    var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[start...end])
    }

    /// Options compare ignoring case and surrounding spaces.
    var optionKey: String { trimmingWhitespace.lowercased() }
}
