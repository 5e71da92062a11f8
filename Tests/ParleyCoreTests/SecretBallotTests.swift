import Foundation
import ParleyCore
import ParleyCrypto
import ParleyTestKit
import Testing

/// docs/BALLOTS.md §7: the vectors the Python implementation (Tests/protocol/ballots.py) computed,
/// read from the document itself so that the document, the Python and the Swift cannot drift.
enum BallotVectors {
    static let values = BallotDocumentVectors.values

    static func value(_ name: String) throws -> [UInt8] {
        try #require(values[name], "docs/BALLOTS.md §7 has no '\(name)'")
    }

    static func identity(_ name: String) throws -> Identity { try Identity(seed: BallotVectors.value("\(name) seed")) }

    /// The vectors' fixed draws (never to be used outside vectors: they repeat α).
    static func draws() throws -> (Int) -> [UInt8] {
        let draws = try (0..<3).map { try BallotVectors.value("draw \($0)") }
        return { draws[$0] }
    }
}

struct SecretBallotTests {
    static let closes: Int64 = 1_800_000_000_000
    static let optionsSpec = PollSpec(
        question: "Lunch?", options: ["Pizza", "Sushi", "Tacos"], maxVotes: 2, anonymous: true, closesAtMillis: closes)

    static func id(_ byte: UInt8) -> Digest32 {
        (try? Digest32(rawRepresentation: [UInt8](repeating: byte, count: 32)))!
    }

    static func keyPair(_ identity: Identity, _ chat: ChatID) throws -> BallotKeyPair {
        try BallotKeyPair(identity: identity, chat: chat.rawRepresentation)
    }

    static func electorate(_ identities: [Identity], chat: ChatID) throws -> [SecretPoll.Elector] {
        try identities.map { SecretPoll.Elector(member: $0.publicKey, key: try keyPair($0, chat).publicKey) }
    }

    static func yesNo(_ identities: [Identity], chat: ChatID) throws -> SecretPoll {
        try SecretPoll(
            question: .yesNo("Pizza?"), closesAtMillis: closes, electorate: electorate(identities, chat: chat))
    }

    // MARK: Vectors

    static let vectorChat = id(0xcc)

    static func vectorElectorate() throws -> [Identity] { try ["alice", "bob", "carol"].map(BallotVectors.identity) }

    @Test func secretPollContentsAreTheDocumentsBytes() throws {
        let electors = try Self.vectorElectorate()
        let yesNo = try Self.yesNo(electors, chat: Self.vectorChat)
        let options = try SecretPoll(
            question: .options(Self.optionsSpec), closesAtMillis: Self.closes,
            electorate: Self.electorate(electors, chat: Self.vectorChat))
        #expect(try yesNo.encoded() == BallotVectors.value("yes/no poll content"))
        #expect(try options.encoded() == BallotVectors.value("options poll content"))
        // The ring is the electorate sorted by member id: bob, alice, carol.
        #expect(yesNo.electorate.map(\.member) == [electors[1], electors[0], electors[2]].map(\.publicKey))
        // and the document's bytes read back as these polls
        #expect(try SecretPoll.decode(content: BallotVectors.value("yes/no poll content")) == yesNo)
        #expect(try Poll(content: BallotVectors.value("options poll content")).secret == options)
    }

    @Test func ballotsCastWithTheVectorDrawsAreTheDocumentsBytes() throws {
        let electors = try Self.vectorElectorate()
        let yesNo = try Self.yesNo(electors, chat: Self.vectorChat)
        let options = try SecretPoll(
            question: .options(Self.optionsSpec), closesAtMillis: Self.closes,
            electorate: Self.electorate(electors, chat: Self.vectorChat))
        let alice = try SecretBallot.cast(
            chat: Self.vectorChat, poll: Self.id(0xdd), secret: yesNo, selection: ["up"],
            key: Self.keyPair(electors[0], Self.vectorChat),
            randomness: BallotVectors.draws())
        #expect(try alice.encoded == BallotVectors.value("alice yes/no ballot"))
        #expect(try alice.linkingTag.rawRepresentation == BallotVectors.value("alice yes/no tag"))
        // bob selects 3 then 1: the ballot carries them in the poll's order
        let bob = try SecretBallot.cast(
            chat: Self.vectorChat, poll: Self.id(0xee), secret: options, selection: ["3", "1"],
            key: Self.keyPair(electors[1], Self.vectorChat),
            randomness: BallotVectors.draws())
        #expect(try bob.encoded == BallotVectors.value("bob options ballot"))
        #expect(bob.selection == ["1", "3"])

        // The document's ballots decode and verify against their polls, and only against them.
        let decoded = try SecretBallot(decoding: BallotVectors.value("alice yes/no ballot"))
        #expect(decoded == alice)
        try decoded.verify(chat: Self.vectorChat, poll: Self.id(0xdd), secret: yesNo)
        #expect(throws: CoreError.self) {
            try decoded.verify(chat: Self.vectorChat, poll: Self.id(0xee), secret: yesNo)
        }
        try SecretBallot(decoding: BallotVectors.value("bob options ballot")).verify(
            chat: Self.vectorChat, poll: Self.id(0xee), secret: options)

        // Its envelope: version, chat, length, ballot, zeros to the poll's envelope size, 512 bytes.
        #expect(yesNo.envelopeBytes == 512)
        let envelope = try BallotEnvelope(chat: Self.vectorChat, ballot: alice.encoded).encoded(
            size: yesNo.envelopeBytes)
        #expect(envelope.count == 512)
        #expect(try BLAKE2b.hash256(envelope) == BallotVectors.value("alice yes/no envelope hash"))
        #expect(try BallotEnvelope(decoding: envelope) == BallotEnvelope(chat: Self.vectorChat, ballot: alice.encoded))
    }

    @Test func theDocumentsRejectedSignaturesMakeRejectedBallots() throws {
        let yesNo = try Self.yesNo(Self.vectorElectorate(), chat: Self.vectorChat)
        let ballot = try BallotVectors.value("alice yes/no ballot")
        let header = Array(ballot[..<(ballot.count - RingSignature.byteCount(members: 3))])
        let flipped = try SecretBallot(decoding: header + BallotVectors.value("reject: flipped response"))
        #expect(throws: CoreError.self) {
            try flipped.verify(chat: Self.vectorChat, poll: Self.id(0xdd), secret: yesNo)
        }
        #expect(throws: CoreError.self) { try SecretBallot(decoding: header + BallotVectors.value("reject: c0 + l")) }
        #expect(throws: CoreError.self) {
            try SecretBallot(decoding: header + BallotVectors.value("reject: identity tag"))
        }
    }

    // MARK: Casting and verifying

    static let members = (11...15).map { Fixtures.identity(UInt8($0)) }
    static let memberIDs = Set(members.map(\.publicKey))
    static let chat = Fixtures.invite.id

    @Test func everyElectorCanCastABallotThatVerifies() throws {
        let poll = try Self.yesNo(Self.members, chat: Self.chat)
        for (index, member) in Self.members.enumerated() {
            let ballot = try SecretBallot.cast(
                chat: Self.chat, poll: Self.id(0x50), secret: poll, selection: [index % 2 == 0 ? "up" : "down"],
                key: Self.keyPair(member, Self.chat))
            let received = try SecretBallot(decoding: ballot.encoded)
            try received.verify(chat: Self.chat, poll: Self.id(0x50), secret: poll)
            #expect(
                received.linkingTag
                    == (try LSAG.linkingTag(
                        of: Self.keyPair(member, Self.chat),
                        scope: Self.chat.rawRepresentation + Self.id(0x50).rawRepresentation)))
            #expect(
                ballot.encoded.count == 1 + 32 + 1 + 1 + (index % 2 == 0 ? 2 : 4) + 2
                    + RingSignature.byteCount(members: 5))
        }
    }

    @Test func aMemberOutsideTheElectorateCannotCast() throws {
        let poll = try Self.yesNo(Array(Self.members.prefix(4)), chat: Self.chat)
        #expect(throws: CoreError.self) {
            try SecretBallot.cast(
                chat: Self.chat, poll: Self.id(0x50), secret: poll, selection: ["up"],
                key: Self.keyPair(Self.members[4], Self.chat))
        }
        // nor sign over the ring directly
        #expect(throws: CryptoError.self) {
            try LSAG.sign(
                [1], ring: poll.ring, signer: Self.keyPair(Self.members[4], Self.chat),
                scope: Self.chat.rawRepresentation)
        }
    }

    @Test func aBallotFailsAgainstATamperedElectorate() throws {
        let poll = try Self.yesNo(Self.members, chat: Self.chat)
        let ballot = try SecretBallot.cast(
            chat: Self.chat, poll: Self.id(0x50), secret: poll, selection: ["up"],
            key: Self.keyPair(Self.members[0], Self.chat))
        // one member listed with another key (that of the same identity in another chat)
        var electors = poll.electorate
        electors[3] = SecretPoll.Elector(
            member: electors[3].member, key: try Self.keyPair(Self.members[3], Self.id(0x77)).publicKey)
        let replaced = try SecretPoll(question: poll.question, closesAtMillis: Self.closes, electorate: electors)
        // the keys in another order (members listed under each other's keys)
        var shuffled = poll.electorate
        shuffled[0] = SecretPoll.Elector(member: poll.electorate[0].member, key: poll.electorate[1].key)
        shuffled[1] = SecretPoll.Elector(member: poll.electorate[1].member, key: poll.electorate[0].key)
        let reordered = try SecretPoll(question: poll.question, closesAtMillis: Self.closes, electorate: shuffled)
        let extended = try Self.yesNo(Self.members + [Fixtures.mallory], chat: Self.chat)
        let reduced = try Self.yesNo(Array(Self.members.prefix(4)), chat: Self.chat)
        for tampered in [replaced, reordered, extended, reduced] {
            #expect(throws: CoreError.self) {
                try ballot.verify(chat: Self.chat, poll: Self.id(0x50), secret: tampered)
            }
        }
        try ballot.verify(chat: Self.chat, poll: Self.id(0x50), secret: poll)
    }

    @Test func aBallotIsForOnePollInOneChat() throws {
        let poll = try Self.yesNo(Self.members, chat: Self.chat)
        let ballot = try SecretBallot.cast(
            chat: Self.chat, poll: Self.id(0x50), secret: poll, selection: ["up"],
            key: Self.keyPair(Self.members[1], Self.chat))
        #expect(throws: CoreError.self) { try ballot.verify(chat: Self.chat, poll: Self.id(0x51), secret: poll) }
        #expect(throws: CoreError.self) { try ballot.verify(chat: Self.id(0x52), poll: Self.id(0x50), secret: poll) }
        // Rewriting the poll id inside the ballot moves it nowhere: the signature's scope is the old poll.
        var moved = ballot.encoded
        moved.replaceSubrange(1..<33, with: Self.id(0x51).rawRepresentation)
        #expect(throws: CoreError.self) {
            try SecretBallot(decoding: moved).verify(chat: Self.chat, poll: Self.id(0x51), secret: poll)
        }
    }

    /// A ballot signed by an elector over whatever selection bytes, bypassing `cast`'s checks.
    static func handMade(_ selection: [String], poll: SecretPoll, by member: Identity, pollID: MessageID = id(0x50))
        throws -> [UInt8]
    {
        let selectionBytes = try PollSelection.encode(selection)
        let signature = try LSAG.sign(
            Array("parley/2 secret ballot".utf8) + selectionBytes, ring: poll.ring, signer: keyPair(member, chat),
            scope: chat.rawRepresentation + pollID.rawRepresentation)
        let count = UInt16(poll.electorate.count)
        return [1] + pollID.rawRepresentation + selectionBytes + [UInt8(count >> 8), UInt8(count & 0xff)]
            + signature.encoded
    }

    @Test func aValidSignatureOverABadSelectionIsStillRejected() throws {
        let spec = PollSpec(
            question: "Where?", options: ["Lake", "Hills", "Town"], maxVotes: 2, closesAtMillis: Self.closes)
        let poll = try SecretPoll(
            question: .options(spec), closesAtMillis: Self.closes,
            electorate: Self.electorate(Self.members, chat: Self.chat))
        try SecretBallot(decoding: Self.handMade(["1", "3"], poll: poll, by: Self.members[0])).verify(
            chat: Self.chat, poll: Self.id(0x50), secret: poll)
        for bad in [["3", "1"], ["1", "2", "3"], ["4"], ["up"], ["1", "1"]] {
            let ballot = try SecretBallot(decoding: Self.handMade(bad, poll: poll, by: Self.members[0]))
            #expect(throws: CoreError.self, "\(bad)") {
                try ballot.verify(chat: Self.chat, poll: Self.id(0x50), secret: poll)
            }
        }
        // An empty selection signs too, but is no ballot.
        let empty = try SecretBallot(decoding: Self.handMade([], poll: poll, by: Self.members[0]))
        #expect(throws: CoreError.self) { try empty.verify(chat: Self.chat, poll: Self.id(0x50), secret: poll) }
    }

    @Test func aTamperedSelectionBreaksTheSignature() throws {
        let poll = try Self.yesNo(Self.members, chat: Self.chat)
        let ballot = try SecretBallot.cast(
            chat: Self.chat, poll: Self.id(0x50), secret: poll, selection: ["up"],
            key: Self.keyPair(Self.members[2], Self.chat))
        // "up" → "down" in the selection, the signature kept
        let down = [1] + Self.id(0x50).rawRepresentation + [1, 4] + Array("down".utf8) + Array(ballot.encoded[37...])
        let tampered = try SecretBallot(decoding: down)
        #expect(tampered.selection == ["down"])
        #expect(throws: CoreError.self) { try tampered.verify(chat: Self.chat, poll: Self.id(0x50), secret: poll) }
    }

    @Test func randomAndTruncatedBytesAreNoBallot() throws {
        let poll = try Self.yesNo(Self.members, chat: Self.chat)
        let ballot = try SecretBallot.cast(
            chat: Self.chat, poll: Self.id(0x50), secret: poll, selection: ["down"],
            key: Self.keyPair(Self.members[3], Self.chat))
        for cut in [0, 1, 33, 40, ballot.encoded.count - 1] {
            #expect(throws: CoreError.self) { try SecretBallot(decoding: Array(ballot.encoded.prefix(cut))) }
        }
        #expect(throws: CoreError.self) { try SecretBallot(decoding: ballot.encoded + [0]) }
        for length in [0, 10, 100, ballot.encoded.count, 2_000] {
            for _ in 0..<20 {
                var bytes = secureRandomBytes(count: length)
                if !bytes.isEmpty { bytes[0] = 1 }
                // Either it does not decode, or it does not verify.
                if let random = try? SecretBallot(decoding: bytes) {
                    #expect(throws: CoreError.self) {
                        try random.verify(chat: Self.chat, poll: Self.id(0x50), secret: poll)
                    }
                }
            }
        }
        // Every scalar of a real ballot plus ℓ: the same signature, another encoding, refused.
        let order: [UInt8] = [
            0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
        ]
        let signatureStart = ballot.encoded.count - RingSignature.byteCount(members: 5)
        for scalar in 0..<6 {
            var bytes = ballot.encoded
            var carry = 0
            for index in 0..<32 {
                let at = signatureStart + 32 * (scalar + 1) + index
                let sum = Int(bytes[at]) + Int(order[index]) + carry
                bytes[at] = UInt8(sum & 0xff)
                carry = sum >> 8
            }
            #expect(throws: CoreError.self) { try SecretBallot(decoding: bytes) }
        }
    }

    @Test func twoBallotsOfOneMemberLinkInOnePollAndNotAcrossPolls() throws {
        let poll = try Self.yesNo(Self.members, chat: Self.chat)
        let key = try Self.keyPair(Self.members[0], Self.chat)
        let up = try SecretBallot.cast(chat: Self.chat, poll: Self.id(0x50), secret: poll, selection: ["up"], key: key)
        let down = try SecretBallot.cast(
            chat: Self.chat, poll: Self.id(0x50), secret: poll, selection: ["down"], key: key)
        let upAgain = try SecretBallot.cast(
            chat: Self.chat, poll: Self.id(0x50), secret: poll, selection: ["up"], key: key)
        let elsewhere = try SecretBallot.cast(
            chat: Self.chat, poll: Self.id(0x60), secret: poll, selection: ["up"], key: key)
        let otherMember = try SecretBallot.cast(
            chat: Self.chat, poll: Self.id(0x50), secret: poll, selection: ["up"],
            key: Self.keyPair(Self.members[1], Self.chat))
        #expect(up.linkingTag == down.linkingTag && up.linkingTag == upAgain.linkingTag)
        #expect(up.encoded != upAgain.encoded)
        #expect(up.linkingTag != elsewhere.linkingTag)
        #expect(up.linkingTag != otherMember.linkingTag)
    }

    // MARK: Tally

    /// Messages in a chat, each author's sequences counted up.
    struct Chat {
        var sequences: [PeerID: UInt64] = [:]
        var lamport: UInt64 = 0

        mutating func post(
            _ author: Identity, _ tag: ParleyCore.Tag, _ content: [UInt8], referencing poll: Message? = nil,
            chat: ChatID = Fixtures.invite.id
        ) throws -> Message {
            sequences[author.publicKey, default: 0] += 1
            lamport += 1
            return try MessageDraft(
                chat: chat, author: author.publicKey, sequence: sequences[author.publicKey]!, lamport: lamport,
                timestampMillis: 42, tag: tag,
                content: content, references: poll.map { [MessageReference(id: $0.id, tag: tag)] } ?? []
            ).signed(by: author)
        }

        /// The members' ballot keys, and member 0's secret yes/no poll over all of them.
        mutating func yesNoPoll() throws -> (secret: SecretPoll, keys: [Message], poll: Message) {
            let secret = try SecretBallotTests.yesNo(SecretBallotTests.members, chat: SecretBallotTests.chat)
            let keys = try ballotKeys(SecretBallotTests.members)
            return (secret, keys, try post(SecretBallotTests.members[0], .poll, secret.encoded()))
        }

        /// `author`'s commitment to `salted` ballots, and its reveal of one, on `poll`.
        mutating func commit(_ author: Identity, _ salted: [(salt: [UInt8], ballot: [UInt8])], on poll: Message) throws
            -> Message
        {
            try post(author, .pollBallotCommit, BallotCommitment(salted: salted).encoded(), referencing: poll)
        }

        mutating func reveal(_ author: Identity, _ ballot: [UInt8], salt: [UInt8], on poll: Message) throws -> Message {
            try post(author, .pollBallotReveal, BallotReveal(salt: salt, ballot: ballot).encoded(), referencing: poll)
        }

        /// Member 0's close of `poll` (the creator's, for a `yesNoPoll`), covering every message posted so far.
        mutating func close(_ poll: Message) throws -> Message {
            let coverage = PollCoverage(holdings: sequences.mapValues { AuthorHoldings.contiguous($0) })
            return try post(SecretBallotTests.members[0], .pollClose, coverage.encoded(), referencing: poll)
        }

        mutating func ballotKeys(_ members: [Identity]) throws -> [Message] {
            try members.map {
                try post($0, .ballotKey, SecretBallotTests.keyPair($0, Fixtures.invite.id).publicKey.rawRepresentation)
            }
        }
    }

    @Test func aReusedTagWithAnotherChoiceCountsNeither() throws {
        var chat = Chat()
        let (secret, keys, poll) = try chat.yesNoPoll()
        func ballot(_ member: Int, _ choice: String) throws -> Message {
            let ballot = try SecretBallot.cast(
                chat: Self.chat, poll: poll.id, secret: secret, selection: [choice],
                key: Self.keyPair(Self.members[member], Self.chat))
            return try chat.post(Self.members[0], .pollSecretBallot, ballot.encoded, referencing: poll)
        }
        // Given member 1 votes up and then down, member 2 votes up twice (two signatures), member 3 down
        let related = [
            try ballot(1, "up"), try ballot(1, "down"),
            try ballot(2, "up"), try ballot(2, "up"),
            try ballot(3, "down"),
            try chat.post(Self.members[0], .pollSecretBallot, [1, 2, 3], referencing: poll),
        ]
        let tally = SecretPollRules.tally(
            poll: poll, secret: secret, members: Self.memberIDs, related: related, ballotKeys: keys
        ) {
            SecretPollRules.check($0, poll: poll, secret: secret)
        }
        // Then member 1's two choices link, and neither counts; member 2 counts once
        #expect(tally.counts == ["up": 1, "down": 1])
        #expect((tally.counted, tally.conflicting, tally.rejected, tally.late) == (2, 1, 1, 0))
        let memberTwo = try LSAG.linkingTag(
            of: Self.keyPair(Self.members[2], Self.chat), scope: Self.chat.rawRepresentation + poll.id.rawRepresentation
        )
        #expect(tally.countedTags.contains(memberTwo))
        #expect(tally.electorateProblem == nil)
    }

    @Test func aValidBallotPublishedByAnyoneButTheCreatorCountsNothingAndCostsNoRingCheck() throws {
        // Given member 1's valid ballot put out by member 2 on arrival (finding 4 of issue 34: its first
        // relay would link it to the voter), and member 3's published by the creator
        var chat = Chat()
        let (secret, keys, poll) = try chat.yesNoPoll()
        func cast(_ member: Int, _ choice: String) throws -> [UInt8] {
            try SecretBallot.cast(
                chat: Self.chat, poll: poll.id, secret: secret, selection: [choice],
                key: Self.keyPair(Self.members[member], Self.chat)
            ).encoded
        }
        let related = [
            try chat.post(Self.members[2], .pollSecretBallot, try cast(1, "up"), referencing: poll),
            try chat.post(Self.members[0], .pollSecretBallot, try cast(3, "down"), referencing: poll),
        ]
        var checked: [MessageID] = []
        let tally = SecretPollRules.tally(
            poll: poll, secret: secret, members: Self.memberIDs, related: related, ballotKeys: keys
        ) {
            checked.append($0.id)
            return SecretPollRules.check($0, poll: poll, secret: secret)
        }
        // Then only the creator's counts, the other is counted apart, and its ring is never checked
        #expect(tally.counts == ["up": 0, "down": 1])
        #expect((tally.counted, tally.rejected, tally.byOthers) == (1, 0, 1))
        #expect(checked == [related[1].id])
    }

    @Test func anElectorateKeyItsMemberDidNotPublishCountsNothing() throws {
        var chat = Chat()
        let (secret, keys, poll) = try chat.yesNoPoll()
        let ballot = try SecretBallot.cast(
            chat: Self.chat, poll: poll.id, secret: secret, selection: ["up"],
            key: Self.keyPair(Self.members[1], Self.chat))
        let related = [try chat.post(Self.members[0], .pollSecretBallot, ballot.encoded, referencing: poll)]
        func tally(_ keys: [Message]) -> SecretTally {
            SecretPollRules.tally(
                poll: poll, secret: secret, members: Self.memberIDs, related: related, ballotKeys: keys
            ) { SecretPollRules.check($0, poll: poll, secret: secret) }
        }
        #expect(tally(keys).counts["up"] == 1)
        // member 3's key missing, or published by someone else (the creator), or in another chat
        let byCreator = try chat.post(
            Self.members[0], .ballotKey, Self.keyPair(Self.members[3], Self.chat).publicKey.rawRepresentation)
        let elsewhere = try chat.post(
            Self.members[3], .ballotKey, Self.keyPair(Self.members[3], Self.chat).publicKey.rawRepresentation,
            chat: Self.id(0x99))
        for broken in [keys.filter { $0.author != Self.members[3].publicKey }]
            + [byCreator, elsewhere].map({ keys.filter { $0.author != Self.members[3].publicKey } + [$0] })
        {
            let counted = tally(broken)
            #expect(counted.electorateProblem != nil)
            #expect(counted.counts == ["up": 0, "down": 0] && counted.counted == 0)
        }
    }

    /// A small deterministic generator, so a failure repeats (signatures still use fresh randomness).
    @Test func aThousandBallotsFromTwentyMembersTallyTheSameOnEveryNode() throws {
        var random = SplitMix64(seed: 2_024)
        var chat = Chat()
        let members = (21...40).map { Fixtures.identity(UInt8($0)) }
        let spec = PollSpec(
            question: "Where?", options: ["Lake", "Hills", "Town", "Beach"], maxVotes: 2, closesAtMillis: Self.closes)
        let secret = try SecretPoll(
            question: .options(spec), closesAtMillis: Self.closes, electorate: Self.electorate(members, chat: Self.chat)
        )
        let keys = try chat.ballotKeys(members)
        let poll = try chat.post(members[0], .poll, secret.encoded())
        let otherPoll = try chat.post(members[1], .poll, secret.encoded())
        let selections: [[String]] = [["1"], ["2"], ["3"], ["4"], ["1", "2"], ["2", "4"], ["1", "3"]]

        // Each member abstains, votes (re-signing the same choice up to three times), or votes two different ways.
        struct Cast { let bytes: [UInt8]; let voter: Int; let selection: [String] }
        var casts: [Cast] = []
        for voter in members.indices {
            let key = try Self.keyPair(members[voter], Self.chat)
            let behaviour = Int.random(in: 0..<10, using: &random)
            if behaviour == 0 { continue }
            var choices = [selections.randomElement(using: &random)!]
            if behaviour >= 8 { choices.append(selections.filter { $0 != choices[0] }.randomElement(using: &random)!) }
            for choice in choices {
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let ballot = try SecretBallot.cast(
                        chat: Self.chat, poll: poll.id, secret: secret, selection: choice, key: key)
                    casts.append(Cast(bytes: ballot.encoded, voter: voter, selection: ballot.selection))
                }
            }
        }
        // Invalid ballots: for the other poll, with a flipped byte, by a key outside the electorate, garbage.
        let outsider = try SecretPoll(
            question: .options(spec), closesAtMillis: Self.closes,
            electorate: Self.electorate(Array(members.dropLast()) + [Fixtures.mallory], chat: Self.chat))
        var invalid: [[UInt8]] = []
        for index in 0..<6 {
            let voter = members[index]
            invalid.append(
                try SecretBallot.cast(
                    chat: Self.chat, poll: otherPoll.id, secret: secret, selection: ["1"],
                    key: Self.keyPair(voter, Self.chat)
                ).encoded)
            var flipped = try SecretBallot.cast(
                chat: Self.chat, poll: poll.id, secret: secret, selection: ["2"], key: Self.keyPair(voter, Self.chat)
            ).encoded
            flipped[flipped.count - 1 - Int.random(in: 0..<600, using: &random)] ^= 0x01
            invalid.append(flipped)
            invalid.append(secureRandomBytes(count: Int.random(in: 0..<800, using: &random)))
        }
        invalid.append(
            try SecretBallot.cast(
                chat: Self.chat, poll: poll.id, secret: outsider, selection: ["3"],
                key: Self.keyPair(Fixtures.mallory, Self.chat)
            ).encoded)
        invalid.append(
            try SecretBallot.cast(
                chat: Self.id(0x99), poll: poll.id, secret: secret, selection: ["3"],
                key: Self.keyPair(members[7], Self.chat)
            ).encoded)

        // 1,000 ballot messages, most by the creator (its batches), some put out by another member
        // (which count nothing: only the creator publishes); the creator closes after the first 900.
        struct Relayed { let message: Message; let cast: Cast?; let beforeClose: Bool; let byCreator: Bool }
        var relayed: [Relayed] = []
        var close: Message?
        for index in 0..<1_000 {
            if index == 900 {
                let holdings = chat.sequences.mapValues { AuthorHoldings.contiguous($0) }
                close = try chat.post(
                    members[0], .pollClose, PollCoverage(holdings: holdings).encoded(), referencing: poll)
            }
            let relay = Int.random(in: 0..<10, using: &random) < 8 ? members[0] : members.randomElement(using: &random)!
            let cast = Int.random(in: 0..<10, using: &random) < 8 ? casts.randomElement(using: &random)! : nil
            let bytes = cast?.bytes ?? invalid.randomElement(using: &random)!
            relayed.append(
                Relayed(
                    message: try chat.post(relay, .pollSecretBallot, bytes, referencing: poll), cast: cast,
                    beforeClose: index < 900,
                    byCreator: relay.publicKey == members[0].publicKey))
        }
        let creatorsClose = try #require(close)

        // The expectation, from how the ballots were made: per voter, the distinct selections it got in before the close.
        var inTime: [Int: Set<[String]>] = [:]
        for item in relayed where item.beforeClose && item.byCreator {
            if let cast = item.cast { inTime[cast.voter, default: []].insert(cast.selection) }
        }
        var expected = Dictionary(uniqueKeysWithValues: secret.choiceIDs.map { ($0, 0) })
        for choices in inTime.values where choices.count == 1 {
            for id in choices.first! { expected[id]! += 1 }
        }
        let expectedCounted = inTime.values.filter { $0.count == 1 }.count
        let expectedConflicting = inTime.values.filter { $0.count > 1 }.count
        let expectedRejected = relayed.filter { $0.byCreator && $0.cast == nil }.count
        let expectedLate = relayed.filter { $0.byCreator && $0.cast != nil && !$0.beforeClose }.count
        let expectedByOthers = relayed.filter { !$0.byCreator }.count
        #expect(
            expectedCounted > 5 && expectedConflicting > 0 && expectedLate > 0 && expectedRejected > 100
                && expectedByOthers > 100)

        // Five nodes hold the messages in different orders, some twice, with unrelated ones among them.
        let noise = [
            try chat.post(members[3], .text, Array("about the poll".utf8), referencing: poll),
            try chat.post(members[4], .pollSecretBallot, casts[0].bytes, referencing: otherPoll),
            try chat.post(members[5], .pollSecretBallot, casts[0].bytes, referencing: poll, chat: Self.id(0x99)),
            try chat.post(members[6], .pollClose, [], referencing: poll),
        ]
        let strangerKey = try chat.post(
            Fixtures.mallory, .ballotKey, Self.keyPair(Fixtures.mallory, Self.chat).publicKey.rawRepresentation)
        var cache: [MessageID: CheckedBallot?] = [:]
        var checks = 0
        var tallies: [SecretTally] = []
        for _ in 0..<5 {
            var held = relayed.map(\.message) + [creatorsClose] + noise
            held += held.filter { _ in Int.random(in: 0..<10, using: &random) == 0 }
            held.shuffle(using: &random)
            var heldKeys = keys + [strangerKey] + keys.prefix(3)
            heldKeys.shuffle(using: &random)
            tallies.append(
                SecretPollRules.tally(
                    poll: poll, secret: secret, members: Set(members.map(\.publicKey)), related: held,
                    ballotKeys: heldKeys
                ) { message in
                    if let known = cache[message.id] { return known }
                    checks += 1
                    let checked = SecretPollRules.check(message, poll: poll, secret: secret)
                    cache[message.id] = checked
                    return checked
                })
        }
        // Every message by the creator checked once; none by another member checked at all.
        #expect(checks == relayed.count - expectedByOthers)
        #expect(Set(tallies).count == 1)
        let tally = try #require(tallies.first)
        #expect(tally.counts == expected)
        #expect(tally.counted == expectedCounted)
        #expect(tally.conflicting == expectedConflicting)
        #expect(tally.rejected == expectedRejected)
        #expect(tally.late == expectedLate)
        #expect(tally.byOthers == expectedByOthers)
        #expect(tally.close?.message == creatorsClose.id && tally.electorateProblem == nil)
    }

    // MARK: Costs (docs/BALLOTS.md §6)

    @Test(.enabled(if: ProcessInfo.processInfo.environment["PARLEY_BALLOT_COSTS"] == "1"))
    func printsBallotSizesAndTimes() throws {
        let clock = ContinuousClock()
        for size in [10, 50, 200] {
            let members = (0..<size).map { _ in (try? Identity.generate())! }
            let secret = try Self.yesNo(members, chat: Self.chat)
            let key = try Self.keyPair(members[size / 2], Self.chat)
            var ballot = try SecretBallot.cast(
                chat: Self.chat, poll: Self.id(0x50), secret: secret, selection: ["up"], key: key)
            let rounds = size == 200 ? 10 : 30
            var signTimes: [Duration] = []
            var verifyTimes: [Duration] = []
            for _ in 0..<rounds {
                signTimes.append(
                    try clock.measure {
                        ballot = try SecretBallot.cast(
                            chat: Self.chat, poll: Self.id(0x50), secret: secret, selection: ["up"], key: key)
                    })
                verifyTimes.append(
                    try clock.measure {
                        try SecretBallot(decoding: ballot.encoded).verify(
                            chat: Self.chat, poll: Self.id(0x50), secret: secret)
                    })
            }
            let envelope = try BallotEnvelope(chat: Self.chat, ballot: ballot.encoded).encoded(
                size: secret.envelopeBytes)
            func median(_ times: [Duration]) -> String {
                let sorted = times.sorted()
                return String(
                    format: "%.2f ms",
                    Double(sorted[sorted.count / 2].components.attoseconds) / 1e15 + Double(
                        sorted[sorted.count / 2].components.seconds) * 1e3)
            }
            print(
                "ballot costs: \(size) members, poll content \(try secret.encoded().count) B, ballot \(ballot.encoded.count) B, sealed envelope \(envelope.count + 48) B, sign \(median(signTimes)), verify \(median(verifyTimes)) (median of \(rounds))"
            )
        }
    }
}

/// docs/BALLOTS.md §4 "Suppression" and its §7 vectors: a publisher's commitment and reveal.
struct BallotCommitmentTests {
    @Test func commitmentEntriesContentAndRevealAreTheDocumentsBytes() throws {
        let (saltOne, saltTwo) = try (
            BallotVectors.value("commitment salt 1"), BallotVectors.value("commitment salt 2")
        )
        let (alice, bob) = try (BallotVectors.value("alice yes/no ballot"), BallotVectors.value("bob options ballot"))
        #expect(
            try BallotCommitment.entry(salt: saltOne, ballot: alice).rawRepresentation
                == BallotVectors.value("alice yes/no commitment entry"))
        #expect(
            try BallotCommitment.entry(salt: saltTwo, ballot: bob).rawRepresentation
                == BallotVectors.value("bob options commitment entry"))
        let commitment = try BallotCommitment(salted: [(saltOne, alice), (saltTwo, bob)])
        #expect(try commitment.encoded() == BallotVectors.value("commitment content"))
        #expect(try BallotCommitment(decoding: BallotVectors.value("commitment content")) == commitment)
        let reveal = BallotReveal(salt: saltOne, ballot: alice)
        #expect(try BLAKE2b.hash256(reveal.encoded()) == BallotVectors.value("alice yes/no reveal hash"))
        #expect(try BallotReveal(decoding: reveal.encoded()) == reveal)
        // A salt opens its own entry only.
        #expect(commitment.contains(reveal) && !commitment.contains(BallotReveal(salt: saltTwo, ballot: alice)))
    }

    @Test func malformedCommitmentsAndRevealsAreRefused() throws {
        let content = try BallotVectors.value("commitment content")
        let unsorted = [content[0], content[1], content[2]] + Array(content[35...]) + Array(content[3..<35])
        for bad in [[], [2] + content.dropFirst(), Array(content.dropLast()), [1, 0, 0], unsorted, content + [0]]
            as [[UInt8]]
        {
            #expect(throws: CoreError.self) { try BallotCommitment(decoding: bad) }
        }
        #expect(throws: CoreError.self) { try BallotCommitment(salted: []) }
        let ballot = try BallotVectors.value("alice yes/no ballot")
        #expect(throws: CoreError.self) {
            try BallotCommitment(salted: [
                ([UInt8](repeating: 1, count: 32), ballot), ([UInt8](repeating: 1, count: 32), ballot),
            ])
        }
        for bad in [[], [1], [2] + [UInt8](repeating: 0, count: 40), [1] + [UInt8](repeating: 0, count: 32)]
            as [[UInt8]]
        {
            #expect(throws: CoreError.self) { try BallotReveal(decoding: bad) }
        }
    }
}

extension SecretBallotTests {
    /// Member `member`'s ballot for `choice` on `poll`.
    static func ballot(_ member: Int, _ choice: String, on poll: Message, _ secret: SecretPoll) throws -> [UInt8] {
        try SecretBallot.cast(
            chat: chat, poll: poll.id, secret: secret, selection: [choice], key: keyPair(members[member], chat)
        ).encoded
    }

    /// `ballot` with its last byte flipped: it decodes, carries the same linking tag, and fails its ring check.
    static func forged(_ ballot: [UInt8]) -> [UInt8] {
        var forged = ballot
        forged[forged.count - 1] ^= 1
        return forged
    }

    @Test func aLeftOutBallotCountsOncePerTagAndRevealSpamCostsOneCheckPerTagAndPerFailingRevealer() throws {
        // Given member 1's ballot, which publishers 2 and 3 committed to, and member 4, which committed
        // to a forged one; the creator's close admits no ballot
        var chat = Chat()
        let (secret, keys, poll) = try chat.yesNoPoll()
        let ballot = try Self.ballot(1, "up", on: poll, secret)
        let forged = Self.forged(ballot)
        let salt = [UInt8](repeating: 9, count: 32)
        var related = [
            try chat.commit(Self.members[2], [(salt, ballot)], on: poll),
            try chat.commit(Self.members[3], [(salt, ballot)], on: poll),
            try chat.commit(Self.members[4], [(salt, forged)], on: poll),
        ]
        related.append(try chat.close(poll))
        // When publisher 2 reveals it four times, publisher 3 twice, member 4 its forgery three times
        for (member, times, bytes) in [(2, 4, ballot), (3, 2, ballot), (4, 3, forged)] {
            for _ in 0..<times { related.append(try chat.reveal(Self.members[member], bytes, salt: salt, on: poll)) }
        }
        var checks = 0
        let tally = SecretPollRules.tally(
            poll: poll, secret: secret, members: Self.memberIDs, related: related.shuffled(), ballotKeys: keys
        ) {
            checks += 1
            return SecretPollRules.check($0, poll: poll, secret: secret)
        }

        // Then one ballot is left out, shown by 2 and 3, for at most two ring checks in all, whatever the
        // nine reveals: one for the tag, and one for the forgery (which carries the same tag, so it is
        // skipped unchecked when a valid reveal of it comes first in id order)
        #expect(tally.suppressed == 1)
        #expect(tally.suppressionRevealedBy == [Self.members[2].publicKey, Self.members[3].publicKey])
        #expect((1...2).contains(checks))

        // and once the creator publishes a ballot under that tag (a voter's other, different one), nothing is left out
        var withBallot = Chat(sequences: chat.sequences, lamport: chat.lamport)
        let published = try withBallot.post(
            Self.members[0], .pollSecretBallot, try Self.ballot(1, "down", on: poll, secret), referencing: poll)
        let closeAfter = try withBallot.close(poll)
        let again = SecretPollRules.tally(
            poll: poll, secret: secret, members: Self.memberIDs,
            related: related.filter { $0.tag != .pollClose } + [published, closeAfter], ballotKeys: keys
        ) { SecretPollRules.check($0, poll: poll, secret: secret) }
        #expect(again.suppressed == 0 && again.counts["down"] == 1)
    }
}

extension SecretBallotTests {
    @Test func aForgedCreatorBallotCarryingTheTagDoesNotHideALeftOutOneAndOverlongCommitmentsSayNothing() throws {
        // Given member 1's ballot, committed to by publisher 2 and left out by the creator, who instead
        // publishes garbage carrying its linking tag; and member 3, whose commitments list more
        // entries than the poll has electors
        var chat = Chat()
        let (secret, keys, poll) = try chat.yesNoPoll()
        let ballot = try Self.ballot(1, "up", on: poll, secret)
        let salt = [UInt8](repeating: 7, count: 32)
        let padding = (0..<secret.electorate.count).map {
            (salt: [UInt8](repeating: UInt8($0 + 1), count: 32), ballot: [UInt8($0)])
        }
        var related = [
            try chat.commit(Self.members[2], [(salt, ballot)], on: poll),
            try chat.commit(Self.members[3], [(salt, ballot)] + padding, on: poll),
            try chat.post(Self.members[0], .pollSecretBallot, Self.forged(ballot), referencing: poll),
        ]
        related.append(try chat.close(poll))
        for member in [2, 3] { related.append(try chat.reveal(Self.members[member], ballot, salt: salt, on: poll)) }
        let tally = SecretPollRules.tally(
            poll: poll, secret: secret, members: Self.memberIDs, related: related, ballotKeys: keys
        ) {
            SecretPollRules.check($0, poll: poll, secret: secret)
        }
        // Then the garbage is rejected, the ballot is shown left out, by publisher 2 alone
        #expect(tally.rejected == 1 && tally.counted == 0)
        #expect(tally.suppressed == 1 && tally.suppressionRevealedBy == [Self.members[2].publicKey])
    }
}

struct AuthorHoldingsCoverageTests {
    @Test func holdingsHoldAllOfAClaimOnlyWhenNoClaimedSequenceIsMissing() throws {
        let claim = try AuthorHoldings(highest: 10, missing: [4...6])
        #expect(AuthorHoldings.contiguous(10).holdsAll(of: claim))
        #expect(try AuthorHoldings(highest: 12, missing: [4...6]).holdsAll(of: claim))
        #expect(try AuthorHoldings(highest: 10, missing: [5...5]).holdsAll(of: claim))
        #expect(!AuthorHoldings.contiguous(9).holdsAll(of: claim))
        #expect(try !AuthorHoldings(highest: 10, missing: [3...5]).holdsAll(of: claim))
        #expect(AuthorHoldings.contiguous(0).holdsAll(of: .contiguous(0)))
        #expect(!AuthorHoldings.contiguous(0).holdsAll(of: .contiguous(1)))
    }
}
