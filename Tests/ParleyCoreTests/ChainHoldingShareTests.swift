import ParleyCore
import ParleyCrypto
import Testing

/// The holding of chained messages is shared fairly (PROTOCOL §4.1): members filling their shares
/// together cannot keep out another member's messages, and a peer holding the most gives way.
struct ChainHoldingShareTests {
    /// A holding of 4 peers' shares: 16 messages each, 64 in all (the default's proportions).
    static func holding() -> ChainAssembler {
        var configuration = ChainAssembler.Configuration()
        configuration.maxHeldPerPeer = 16
        configuration.maxHeld = 64
        return ChainAssembler(configuration: configuration)
    }

    /// `count` chained messages of a new author, 1...count (the head that would vouch for them left out).
    static func run(_ count: Int) throws -> [Message] {
        Array(try ChainAssemblerTests.batch(count + 1, by: try Identity.generate()).dropLast())
    }

    @Test func fourPeersFillingTheirSharesCannotKeepOutAnotherMembersBatch() throws {
        var assembler = Self.holding()
        let colluders = try (0..<4).map { _ in try Identity.generate().publicKey }.sorted()
        var floods: [[Message]] = []
        for colluder in colluders {
            let flood = try Self.run(16)
            for message in flood { #expect(assembler.hold(message, from: colluder, now: .zero) == .held) }
            floods.append(flood)
        }
        #expect(assembler.count == 64)

        // When an honest member delivers a batch of 10: 9 chained messages, then their head
        let batch = try ChainAssemblerTests.batch(10, by: Fixtures.carol)
        let holdings = batch.dropLast().map { assembler.hold($0, from: Fixtures.bob.publicKey, now: .seconds(1)) }

        // Then each of the 9 is held by evicting one of the colluders' oldest, the largest share first,
        // and the head releases all of them
        #expect(holdings.allSatisfy { $0 == .heldEvicting(1) })
        #expect(assembler.release(vouchedBy: batch[9]).released.count == 9)
        let left = floods.map { flood in flood.count { assembler.isHeld($0.id) } }
        #expect(left.sorted() == [13, 14, 14, 14], "\(left)")
        for flood in floods {
            let kept = flood.map { assembler.isHeld($0.id) }
            #expect(kept == kept.sorted { !$0 && $1 }, "evicted oldest first")
        }
    }

    @Test func aPeerHoldingTheMostIsRefusedAndEvictsNothing() throws {
        var configuration = ChainAssembler.Configuration()
        configuration.maxHeld = 4
        var assembler = ChainAssembler(configuration: configuration)
        let (flooder, member) = (Fixtures.mallory.publicKey, Fixtures.bob.publicKey)
        let flood = try Self.run(5)
        for message in flood.prefix(4) { #expect(assembler.hold(message, from: flooder, now: .zero) == .held) }
        // The whole holding is full, and the flooder holds the most: its next message is refused
        #expect(assembler.hold(flood[4], from: flooder, now: .zero) == .full)
        #expect(flood.prefix(4).allSatisfy { assembler.isHeld($0.id) })

        // A member's messages evict the flooder's oldest until the two hold as much
        let theirs = try Self.run(3)
        #expect(assembler.hold(theirs[0], from: member, now: .zero) == .heldEvicting(1))
        #expect(assembler.hold(theirs[1], from: member, now: .zero) == .heldEvicting(1))
        #expect(assembler.hold(theirs[2], from: member, now: .zero) == .full)
        #expect(assembler.hold(flood[4], from: flooder, now: .zero) == .full)
        #expect(flood.map { assembler.isHeld($0.id) } == [false, false, true, true, false])
    }

    @Test func aFullHoldingInBytesEvictsFromThePeerHoldingTheMostBytes() throws {
        let small = try Self.run(3)
        let large = try (1...2).map { sequence in
            try MessageDraft(
                chat: Fixtures.invite.id, author: Fixtures.mallory.publicKey, sequence: UInt64(sequence), lamport: 1,
                timestampMillis: 0,
                tag: .text, content: [UInt8](repeating: 7, count: 4_000)
            ).chained()
        }
        var configuration = ChainAssembler.Configuration()
        configuration.maxHeldBytes = large[0].encoded.count + 2 * small[0].encoded.count
        var assembler = ChainAssembler(configuration: configuration)
        // Carol holds more messages, mallory more bytes
        for message in small.prefix(2) {
            #expect(assembler.hold(message, from: Fixtures.carol.publicKey, now: .zero) == .held)
        }
        for message in large { _ = assembler.hold(message, from: Fixtures.mallory.publicKey, now: .zero) }
        #expect(assembler.isHeld(large[1].id) == false) // past the bytes, mallory holding the most
        #expect(assembler.hold(small[2], from: Fixtures.bob.publicKey, now: .zero) == .heldEvicting(1))
        #expect(!assembler.isHeld(large[0].id) && assembler.isHeld(small[0].id) && assembler.isHeld(small[1].id))
    }

    @Test func aHeadReleasesAtMost127ChainedMessagesBelowIt() throws {
        var assembler = ChainAssembler()
        let batch = try ChainAssemblerTests.batch(201)
        for message in batch.dropLast() { _ = assembler.hold(message, from: Fixtures.bob.publicKey, now: .zero) }
        let (released, broken) = assembler.release(vouchedBy: batch[200])
        #expect(released.count == ChainAssembler.maxVouched && broken == 0)
        #expect(released.last?.message.sequence == 74)
        // What lies further down stays held, to expire as headless
        #expect(assembler.count == 73 && assembler.expire(now: .seconds(30)) == 73)
    }
}
