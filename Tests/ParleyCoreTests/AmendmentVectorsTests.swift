import Foundation
import ParleyCore
import ParleyCrypto
import Testing

/// PROTOCOL.md §13d's vectors (Tests/protocol/amendment-vectors.json): one chat's messages, edits,
/// deletions, pins and replies, refused ones among them, with what the rules make of each message and
/// the mentions parsed from texts. The file is what these rules compute: this test fails when it is
/// stale, and `PARLEY_WRITE_AMENDMENT_VECTORS=1` rewrites it. Tests/protocol/amendments.py, written
/// from the document alone, derives the same from the message bytes.
struct AmendmentVectorsTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("protocol/amendment-vectors.json")

    @Test("the committed amendment vectors are what the Swift rules compute")
    func theCommittedVectorsAreWhatTheRulesCompute() throws {
        let computed = try AmendmentVectors.make()
        if ProcessInfo.processInfo.environment["PARLEY_WRITE_AMENDMENT_VECTORS"] == "1" {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try (encoder.encode(computed) + Data("\n".utf8)).write(to: Self.file)
        }
        let committed = try JSONDecoder().decode(AmendmentVectors.self, from: Data(contentsOf: Self.file))
        #expect(committed == computed, "Tests/protocol/amendment-vectors.json is stale")
    }

    @Test("the derived state does not depend on the order the messages are held in")
    func theStateDoesNotDependOnOrder() throws {
        let scenario = try AmendmentScenario()
        let forward = AmendmentVectors.targets(scenario.messages, forks: scenario.forks)
        let backward = AmendmentVectors.targets(scenario.messages.reversed(), forks: scenario.forks)
        #expect(forward == backward)
    }
}

/// The chat of the vectors: PROTOCOL.md §4.3's legacy chat (content unsealed, so the vectors show
/// the plaintext the rules read), created by alice with bob and carol.
struct AmendmentScenario {
    let messages: [Message]
    let forks: ChatForks
    let proof: ForkProof

    static let (alice, bob, carol) = (Fixtures.alice, Fixtures.bob, Fixtures.carol)

    static func mention(_ peer: Identity) -> String { Mentions.token(for: peer.publicKey) }

    /// One author's chain: each message names the one before it.
    final class Chain {
        let author: Identity
        var last: Message?
        var all: [Message] = []

        init(_ author: Identity) { self.author = author }

        @discardableResult
        func add(
            _ tag: ParleyCore.Tag, _ content: [UInt8], lamport: UInt64, refs: [MessageReference] = [],
            chained: Bool = false
        ) throws -> Message {
            let draft = MessageDraft(
                chat: Fixtures.invite.id, author: author.publicKey, sequence: (last?.sequence ?? 0) + 1,
                previous: last?.id, lamport: lamport, timestampMillis: 1_000 + Int64(lamport), tag: tag,
                content: content, references: refs)
            let message = chained ? try draft.chained() : try draft.signed(by: author)
            last = message
            all.append(message)
            return message
        }

        @discardableResult
        func text(
            _ text: String, lamport: UInt64, replyTo: Message? = nil, tag: ParleyCore.Tag? = nil, chained: Bool = false
        )
            throws -> Message
        {
            try add(
                .text, Array(text.utf8), lamport: lamport,
                refs: replyTo.map { [MessageReference(id: $0.id, tag: tag ?? $0.tag)] } ?? [], chained: chained)
        }

        @discardableResult
        func amend(_ tag: ParleyCore.Tag, _ target: Message, _ content: [UInt8] = [], lamport: UInt64) throws -> Message
        {
            try add(tag, content, lamport: lamport, refs: [MessageReference(id: target.id, tag: tag)])
        }
    }

    init() throws {
        let a = Chain(Self.alice), b = Chain(Self.bob), c = Chain(Self.carol)
        let hello = try a.text("hello \(Self.mention(Self.bob))", lamport: 1, chained: true)
        let rumour = try b.text("a rumour", lamport: 2, chained: true)
        let poll = try b.add(.poll, Array("Pizza?".utf8), lamport: 3)
        let menu = try c.add(.custom, Array(#"{"menu":["soup","salad"]}"#.utf8), lamport: 4, chained: true)
        let vote = try a.add(.pollVoteUp, [], lamport: 5, refs: [MessageReference(id: poll.id, tag: .pollVoteUp)])
        // alice's two edits: the later in her chain shows, though it claims the lower clock
        try a.amend(.edit, hello, Array("hello again".utf8), lamport: 10)
        try a.amend(.edit, hello, Array("hello, \(Self.mention(Self.carol))".utf8), lamport: 4)
        try b.amend(.edit, hello, Array("pwned".utf8), lamport: 6) // editNotAuthor
        try b.amend(.edit, poll, Array("Pineapple?".utf8), lamport: 7) // a poll: amendmentNotApplicable
        try c.amend(.edit, menu, Array("{}".utf8), lamport: 7) // Custom: amendmentNotApplicable
        try c.amend(.delete, rumour, lamport: 8) // deleteNotAllowed
        // two counted deletions with one clock: the lower author id (bob) is the deleter
        try b.amend(.delete, rumour, lamport: 9)
        try a.amend(.delete, rumour, lamport: 9)
        try b.amend(.edit, rumour, Array("not a rumour".utf8), lamport: 11) // allowed, but deleted
        try a.amend(.delete, menu, Array("spam".utf8), lamport: 11) // the creator; content not looked at
        try a.amend(.delete, vote, lamport: 12) // a vote: amendmentNotApplicable
        try c.amend(.pin, hello, [0x01], lamport: 12)
        try b.amend(.pin, hello, [0x00], lamport: 13)
        try a.amend(.pin, hello, [0x01], lamport: 13) // ties bob's unpin; alice's id is higher: pinned
        try c.amend(.pin, poll, [0x01], lamport: 14)
        try b.amend(.pin, rumour, [0x01], lamport: 14) // allowed, but deleted
        try c.amend(.pin, hello, [0x07], lamport: 15) // malformed: amendmentNotApplicable, ignored
        try a.text("pepperoni", lamport: 15, replyTo: poll)
        try c.text("source?", lamport: 16, replyTo: rumour)
        try b.text("wrong tag", lamport: 16, replyTo: poll, tag: .text) // not a reply
        try c.add(
            .delete, [], lamport: 17,
            refs: [MessageReference(id: hello.id, tag: .delete), MessageReference(id: poll.id, tag: .delete)])
        let ghost = try MessageID(rawRepresentation: [UInt8](repeating: 0xAB, count: 32))
        try b.add(.edit, Array("boo".utf8), lamport: 17, refs: [MessageReference(id: ghost, tag: .edit)]) // waits
        // carol signs two messages for her sequence 9: from there on hers count for nothing
        let beforeFork = c.last
        let unpin = try c.amend(.pin, poll, [0x00], lamport: 18)
        c.last = beforeFork
        let otherBranch = try c.text("the other branch", lamport: 18)
        c.last = unpin
        try c.text("me too", lamport: 19, replyTo: hello)
        try b.text(
            "\(Self.mention(Self.carol)) <@\(Self.alice.publicKey.hex.uppercased())>", lamport: 20, replyTo: hello)
        proof = try ForkProof(first: [unpin], second: [otherBranch])
        forks = ChatForks(forkedFrom: [proof.author: proof.sequence])
        messages = a.all + b.all + c.all
    }
}

/// The vector file's contents.
struct AmendmentVectors: Codable, Equatable {
    struct Fork: Codable, Equatable {
        let author: String
        let sequence: UInt64
    }

    /// What the rules make of one Text, Custom or Poll message that counts.
    struct Target: Codable, Equatable {
        let id: String
        let tag: String
        /// The content it shows (UTF-8, mention tokens as sent); absent when deleted.
        let shown: String?
        /// Its counted edits, in its author's chain order.
        let edits: [String]
        let deletedBy: String?
        let pinnedBy: String?
        let replies: Int
        /// The members the shown text mentions (Text only), in order of first mention.
        let mentions: [String]
    }

    /// The §16 counter an Edit, Delete or Pin message is refused under as it is stored; absent when
    /// it is not refused (it counts, or waits for its target).
    struct Refusal: Codable, Equatable {
        let id: String
        let counter: String?
    }

    struct MentionCase: Codable, Equatable {
        let text: String
        let mentions: [String]
        let rendered: String
    }

    let about: String
    let invite: String
    let names: [String: String]
    let messages: [String]
    let forks: [Fork]
    let forkProof: String
    let targets: [Target]
    let refusals: [Refusal]
    let mentionCases: [MentionCase]

    static let about =
        "PROTOCOL.md §13d vectors, computed by Tests/ParleyCoreTests/AmendmentVectorsTests.swift from the Swift rules "
        + "and checked by Tests/protocol/amendments.py. Hex throughout; the chat is the legacy chat of §4.3 (unsealed)."

    static func make() throws -> AmendmentVectors {
        let scenario = try AmendmentScenario()
        let creator = Fixtures.invite.creator
        let byID = Dictionary(scenario.messages.map { ($0.id, $0) }) { first, _ in first }
        let names = [Fixtures.alice, Fixtures.bob, Fixtures.carol].enumerated().reduce(into: [String: String]()) {
            $0[$1.element.publicKey.hex] = ["alice", "bob", "carol"][$1.offset]
        }
        let refusals = scenario.messages.filter { [.edit, .delete, .pin].contains($0.tag) }.map { message in
            let target = AmendmentTarget.of(message, tag: message.tag).flatMap { byID[$0] }
            return Refusal(
                id: message.id.hex,
                counter: AmendmentRefusal.rejection(of: message, target: target, creator: creator)?.rawValue)
        }
        return AmendmentVectors(
            about: about, invite: Hex.encode(Fixtures.invite.encoded), names: names,
            messages: scenario.messages.map { Hex.encode($0.encoded) },
            forks: scenario.forks.authors.map { Fork(author: $0.hex, sequence: scenario.forks.forkedFrom[$0] ?? 0) },
            forkProof: Hex.encode(scenario.proof.encoded),
            targets: targets(scenario.messages, forks: scenario.forks), refusals: refusals,
            mentionCases: mentionCases.map { text in
                MentionCase(
                    text: text, mentions: Mentions.mentioned(in: text).map(\.hex),
                    rendered: Mentions.rendered(text) { names[$0.hex] ?? String($0.hex.prefix(8)) })
            })
    }

    /// Each counting Text, Custom or Poll message with what the counting messages make of it, in
    /// history order: what a node's views show (`Node.amendments`).
    static func targets(_ messages: some Sequence<Message>, forks: ChatForks) -> [Target] {
        let counting = messages.filter(forks.counts)
        return counting.filter { ThreadRules.replyTags.contains($0.tag) }
            .sorted { HistoryPosition($0) < HistoryPosition($1) }
            .map { target in
                let found = MessageAmendments(target: target, related: counting, creator: Fixtures.invite.creator)
                let shown =
                    found.deletion == nil ? String(decoding: found.currentContent(of: target), as: UTF8.self) : nil
                return Target(
                    id: target.id.hex, tag: target.tag.rawValue, shown: shown, edits: found.edits.map(\.id.hex),
                    deletedBy: found.deletion?.author.hex, pinnedBy: found.pin?.author.hex, replies: found.replyCount,
                    mentions: target.tag == .text ? shown.map { Mentions.mentioned(in: $0).map(\.hex) } ?? [] : [])
            }
    }

    static let mentionCases: [String] = {
        let bob = Fixtures.bob.publicKey.hex, carol = Fixtures.carol.publicKey.hex
        return [
            "hi <@\(bob)>",
            "<@\(carol)> and <@\(bob)>, again <@\(carol)>",
            "<@<@\(bob)>>",
            "<@\(String(repeating: "00", count: 32))> is anyone's 32 bytes",
            "<@\(bob.uppercased())> upper case",
            "<@\(bob.dropLast())> 63 digits",
            "<@\(bob)0> 65 digits",
            "<@\(bob) no closing bracket",
            "<@\(bob.dropLast())g> not hex",
            "<@\(bob.map { String(UnicodeScalar(0xFEE0 + $0.unicodeScalars.first!.value)!) }.joined())> full width",
            "@bob is not a token",
            "<@\(bob)>\u{301} a combining mark after it",
            "<@\(bob)\u{301}> a combining mark inside it",
            "\u{600}<@\(bob)> a prepended mark before it",
            "e\u{301}<@\(bob)>",
        ]
    }()
}
