import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import Testing

/// A burst is stored in each author's order, so local numbers follow it, whatever order it came in.
struct AuthorOrderTests {
    let chat: ChatID

    init() throws {
        chat = try ChatInvite.create(by: Identity.generate(), title: "t", members: [], createdAtMillis: 0).id
    }

    func message(_ author: Identity, _ sequence: UInt64, text: String = "m") throws -> Message {
        try MessageDraft(
            chat: chat, author: author.publicKey, sequence: sequence, lamport: sequence, timestampMillis: 0, tag: .text,
            content: Array("\(text)\(sequence)".utf8)
        ).signed(by: author)
    }

    @Test func aScrambledBurstIsPutInChatAuthorAndSequenceOrder() throws {
        // Given two authors' messages arriving interleaved and backwards
        let (first, second) = try [Identity.generate(), Identity.generate()].sorted { $0.publicKey < $1.publicKey }.pair
        let arrived = try [
            message(second, 2), message(first, 3), message(second, 1), message(first, 1), message(first, 2),
        ]
        // Then they come out by author, then sequence
        let ordered = Node.inAuthorOrder(arrived.map { (message: $0, peer: 0) }).map(\.message)
        #expect(ordered.map(\.author) == [first, first, first, second, second].map(\.publicKey))
        #expect(ordered.map(\.sequence) == [1, 2, 3, 1, 2])
    }

    @Test func aCheckedBurstIsSortedWithTiesKeptInArrivalOrderAcrossChats() throws {
        // Given a checked burst as it comes: a head, then its chain walked down, with a fork at
        // sequence 2 arriving after the first copy, and another chat's message in between
        let author = try Identity.generate()
        let other = try AuthorOrderTests()
        let arrived = try [
            message(author, 3), message(author, 2), other.message(author, 1), message(author, 2, text: "fork"),
            message(author, 1),
        ]
        // Then each chat's run is in sequence order, the fork stays after the copy it came after, and
        // the chats come in their ids' order
        let ordered = Node.inAuthorOrder(arrived.enumerated().map { (message: $0.element, peer: $0.offset) })
        let (mine, theirs) = (
            ordered.filter { $0.message.chat == chat }, ordered.filter { $0.message.chat == other.chat }
        )
        #expect(mine.map(\.peer) == [4, 1, 3, 0])
        #expect(theirs.map(\.peer) == [2])
        #expect(ordered.first?.message.chat == min(chat, other.chat))
    }

    @Test func threeAuthorsArrivingInACycleComeOutInTheirOrder() throws {
        // Given authors A < B < C whose runs arrive as B, C, A (a rank table read backwards would
        // still sort two lanes right, not three)
        let (a, b, c) = try [Identity.generate(), Identity.generate(), Identity.generate()].sorted {
            $0.publicKey < $1.publicKey
        }.triple
        let arrived = try [message(b, 1), message(c, 1), message(a, 2), message(a, 1)]
        // Then they come out A, A, B, C
        let ordered = Node.inAuthorOrder(arrived.map { (message: $0, peer: 0) }).map(\.message)
        #expect(ordered.map(\.author) == [a, a, b, c].map(\.publicKey))
        #expect(ordered.map(\.sequence) == [1, 2, 1, 1])
    }

    @Test func aBurstAlreadyInOrderKeepsItsOrderAndItsPeers() throws {
        // Given one author's run, with a fork at sequence 2 (same slot, another message) after the first copy
        let author = try Identity.generate()
        let arrived = try [
            message(author, 1), message(author, 2), message(author, 2, text: "fork"), message(author, 3),
        ]
        // Then nothing moves, ties included, and each keeps the peer it came from
        let ordered = Node.inAuthorOrder(arrived.enumerated().map { (message: $0.element, peer: $0.offset) })
        #expect(ordered.map(\.message) == arrived)
        #expect(ordered.map(\.peer) == [0, 1, 2, 3])
    }
}

private extension Array {
    var pair: (Element, Element) { (self[0], self[1]) }
    var triple: (Element, Element, Element) { (self[0], self[1], self[2]) }
}
