import NIOCore
public import ParleyCrypto

/// A poll whose ballots are secret: each is a linkable ring signature over the ballot keys of its
/// electorate, relayed so that no single member learns who cast it (docs/BALLOTS.md). Its content
/// is the byte 0x00, version 2, then this encoding; results are final only at its close.
public struct SecretPoll: Hashable, Sendable {
    /// One voter: a member and the ballot key it published in the chat ("BallotKey").
    public struct Elector: Hashable, Sendable {
        public let member: PeerID
        public let key: BallotPublicKey

        public init(member: PeerID, key: BallotPublicKey) {
            self.member = member
            self.key = key
        }
    }

    /// What it asks: a yes/no question or an options poll's settings.
    public enum Question: Hashable, Sendable {
        case yesNo(String)
        /// Never with answers or suggestions (those are signed by their authors). Its `anonymous`
        /// flag changes nothing: a secret poll lists no voters.
        case options(PollSpec)
    }

    /// The smallest electorate the encoding takes (a voter needs two other members to relay a
    /// ballot); a poll counts only with `minHidingElectors` besides its creator (`SecretPollRules`).
    public static let minElectorate = 3
    /// The electors other than the creator a poll must list: the creator reads every ballot before
    /// publishing it, so a vote hides only among the others, and a ring of the creator, one
    /// accomplice and one honest member would hide nothing.
    public static let minHidingElectors = 3
    /// Keeps a ballot under 8.3 KB (32 bytes per member).
    public static let maxElectorate = 256
    /// Closing times are kept below 2⁵³ ms (year 287,396) so that adding the release window never overflows.
    public static let maxClosesAtMillis: Int64 = 1 << 53
    static let version: UInt8 = 2

    public let question: Question
    public let closesAtMillis: Int64
    /// Sorted by member id: the ring's order.
    public let electorate: [Elector]

    public init(question: Question, closesAtMillis: Int64, electorate: [Elector]) throws(CoreError) {
        let electorate = electorate.sorted { $0.member < $1.member }
        guard (Self.minElectorate...Self.maxElectorate).contains(electorate.count) else {
            throw .invalid(
                "a secret poll needs \(Self.minElectorate) to \(Self.maxElectorate) members with ballot keys, got \(electorate.count)"
            )
        }
        guard (1..<Self.maxClosesAtMillis).contains(closesAtMillis) else {
            throw .invalid("a secret poll's closing time must be between 1 and 2^53 ms since 1970")
        }
        guard Set(electorate.map(\.member)).count == electorate.count,
            Set(electorate.map(\.key)).count == electorate.count
        else {
            throw .invalid("a secret poll's electorate lists a member or a key twice")
        }
        switch question {
        case let .yesNo(text):
            let trimmed = text.trimmingWhitespace
            guard !trimmed.isEmpty else { throw .invalid("a poll needs a question") }
            guard trimmed.utf8.count <= PollSpec.maxQuestionBytes else {
                throw .tooLarge("poll question", limit: PollSpec.maxQuestionBytes, actual: trimmed.utf8.count)
            }
            guard !trimmed.unicodeScalars.contains("\u{0}") else {
                throw .invalid("poll texts cannot contain NUL characters")
            }
        case let .options(spec):
            try spec.validate()
            guard !spec.allowAnswers, !spec.allowSuggestions else {
                throw .invalid("a secret poll takes no answers or suggestions: they are signed by their authors")
            }
            guard spec.closesAtMillis == closesAtMillis else {
                throw .invalid("a secret poll's closing time is its spec's")
            }
        }
        self.question = question
        self.closesAtMillis = closesAtMillis
        self.electorate = electorate
    }

    public var text: String {
        switch question {
        case let .yesNo(text): text
        case let .options(spec): spec.question
        }
    }

    /// The ring, in electorate order.
    public var ring: [BallotPublicKey] { electorate.map(\.key) }

    /// What a ballot may select: "up"/"down", or the option ids "1", "2", …
    public var choiceIDs: [String] {
        switch question {
        case .yesNo: ["up", "down"]
        case let .options(spec): spec.options.indices.map { PollSpec.optionID(index: $0) }
        }
    }

    /// The text of each choice, in `choiceIDs` order.
    public var choiceTexts: [String] {
        switch question {
        case .yesNo: ["up", "down"]
        case let .options(spec): spec.options
        }
    }

    public var selectionLimit: Int {
        switch question {
        case .yesNo: 1
        case let .options(spec): spec.selectionLimit
        }
    }

    public func elector(_ member: PeerID) -> Elector? { electorate.first { $0.member == member } }

    /// The voter's anonymity set as the poll's creator sees it: the electors other than `creator`
    /// (the creator opens no envelope, but every ballot passes through its hands before publishing).
    public func hidingElectors(creator: PeerID) -> Int { electorate.count(where: { $0.member != creator }) }

    /// The padded size of every envelope for this poll (`BallotEnvelope`): its largest possible
    /// ballot (the most choices, each id 4 bytes), with the envelope's header, rounded up to 512.
    /// One size per poll, so a sealed envelope's length says nothing about what it selects.
    public var envelopeBytes: Int {
        let longestID = choiceIDs.map(\.utf8.count).max() ?? 0
        let selection = 1 + min(selectionLimit, choiceIDs.count) * (1 + longestID)
        let ballot = 1 + 32 + selection + 2 + RingSignature.byteCount(members: electorate.count)
        return (BallotEnvelope.headerBytes + ballot + BallotEnvelope.padding - 1) / BallotEnvelope.padding
            * BallotEnvelope.padding
    }

    // MARK: Encoding

    /// 0x00, version 2, form (0 yes/no, 1 options); yes/no: closes at (i64), question (u16 + UTF-8);
    /// options: the options poll's own encoding (u16 length + bytes, closing time inside); then the
    /// electorate: u16 count, each member id (32) and ballot key (32), sorted by member id.
    public func encoded() throws(CoreError) -> [UInt8] {
        var buffer = ByteBuffer()
        buffer.writeInteger(PollSpec.marker)
        buffer.writeInteger(Self.version)
        switch question {
        case let .yesNo(text):
            buffer.writeInteger(UInt8(0))
            buffer.writeInteger(closesAtMillis, endianness: .big)
            buffer.writeLongString(text.trimmingWhitespace)
        case let .options(spec):
            let bytes = try spec.encoded()
            buffer.writeInteger(UInt8(1))
            buffer.writeInteger(UInt16(bytes.count), endianness: .big)
            buffer.writeBytes(bytes)
        }
        buffer.writeInteger(UInt16(electorate.count), endianness: .big)
        for elector in electorate {
            buffer.writeBytes32(elector.member.bytes)
            buffer.writeBytes(elector.key.rawRepresentation)
        }
        return Array(buffer.readableBytesView)
    }

    /// nil unless the content starts with 0x00, version 2; throws for a malformed secret poll.
    public static func decode(content: [UInt8]) throws(CoreError) -> SecretPoll? {
        guard content.count >= 2, content[0] == PollSpec.marker, content[1] == version else { return nil }
        var buffer = ByteBuffer(bytes: content.dropFirst(2))
        let question: Question
        let closesAt: Int64
        switch try buffer.readU8("secret poll form") {
        case 0:
            closesAt = try buffer.readI64("closes at")
            question = .yesNo(try buffer.readLongString("question"))
        case 1:
            let length = Int(try buffer.readU16("options poll length"))
            guard let spec = try PollSpec.decode(content: try buffer.readExactly(length, "options poll")) else {
                throw .malformed("a secret options poll must hold an options poll")
            }
            guard let closes = spec.closesAtMillis else { throw .malformed("a secret poll must have a closing time") }
            (question, closesAt) = (.options(spec), closes)
        case let other: throw .malformed("unknown secret poll form \(other)")
        }
        let count = Int(try buffer.readU16("electorate size"))
        var electorate: [Elector] = []
        for _ in 0..<count {
            let member = try buffer.readPeer("elector")
            let keyBytes = try buffer.readExactly(BallotPublicKey.byteCount, "ballot key")
            let key: BallotPublicKey
            do { key = try BallotPublicKey(rawRepresentation: keyBytes) } catch { throw .malformed("\(error)") }
            electorate.append(Elector(member: member, key: key))
        }
        try buffer.expectFullyRead("secret poll")
        guard electorate.map(\.member) == electorate.map(\.member).sorted() else {
            throw .malformed("the electorate is not sorted by member id")
        }
        return try SecretPoll(question: question, closesAtMillis: closesAt, electorate: electorate)
    }
}
