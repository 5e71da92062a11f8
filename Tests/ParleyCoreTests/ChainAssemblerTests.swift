import ParleyCore
import ParleyCrypto
import Testing

/// The hash chain a batch forms, and how held chained messages are released by what vouches for them.
struct ChainAssemblerTests {
    /// Alice's messages 1...count in `Fixtures.invite`, each naming the one before it; the last one signed.
    static func batch(
        _ count: Int, by author: Identity = Fixtures.alice, startingAt first: UInt64 = 1,
        after previous: MessageID? = nil
    ) throws -> [Message] {
        var messages: [Message] = []
        var link = previous
        for offset in 0..<UInt64(count) {
            let message = try MessageDraft(
                chat: Fixtures.invite.id, author: author.publicKey, sequence: first + offset, previous: link,
                lamport: first + offset,
                timestampMillis: 42, tag: .text, content: Array("m\(first + offset)".utf8)
            ).chained()
            messages.append(message)
            link = message.id
        }
        messages[count - 1] = try messages[count - 1].signedAsHead(by: author)
        return messages
    }

    static let peer = Fixtures.bob.publicKey

    @Test func aChainedMessageHasTheIdOfItsSignedFormAndNoSignatureToVerify() throws {
        let chained = try Self.batch(2)[0]
        let signed = try chained.signedAsHead(by: Fixtures.alice)
        #expect(chained.id == signed.id && !chained.isHead && signed.isHead)
        #expect(chained.encoded.count + 64 == signed.encoded.count && chained.encoded.last == 0)
        #expect(try Message(decoding: chained.encoded) == chained)
        #expect(try Message(decoding: signed.encoded) == signed)
        #expect(throws: CryptoError.badSignature) { try chained.verifySignature() }
        try signed.verifySignature()
        #expect(throws: CoreError.self) { try signed.signedAsHead(by: Fixtures.bob) }
    }

    @Test func aSealByteOtherThanChainedOrHeadAndAFirstMessageWithAPreviousAreMalformed() throws {
        let chained = try Self.batch(1)[0]
        var bytes = Array(chained.encoded.dropLast(65)) + [2] + [UInt8](repeating: 0, count: 64)
        #expect(throws: CoreError.self) { try Message(decoding: bytes) }
        bytes = Array(chained.encoded.dropLast(65)) // no seal byte at all
        #expect(throws: CoreError.self) { try Message(decoding: bytes) }
        #expect(throws: CoreError.self) {
            try MessageDraft(
                chat: Fixtures.invite.id, author: Fixtures.alice.publicKey, sequence: 1, previous: chained.id,
                lamport: 1,
                timestampMillis: 0, tag: .text, content: []
            ).chained()
        }
    }

    @Test func aVerifiedHeadReleasesItsWholeBatchInAnyArrivalOrder() throws {
        let messages = try Self.batch(5)
        for order in [Array(0..<4), [3, 1, 0, 2], [2, 3, 0, 1]] {
            var assembler = ChainAssembler()
            for index in order { #expect(assembler.hold(messages[index], from: Self.peer, now: .zero) == .held) }
            #expect(assembler.hold(messages[1], from: Self.peer, now: .zero) == .alreadyHeld)
            let (released, broken) = assembler.release(vouchedBy: messages[4])
            #expect(released.map(\.message.sequence) == [4, 3, 2, 1] && broken == 0)
            #expect(assembler.count == 0)
        }
    }

    @Test func aGapStopsTheWalkUntilTheMissingMessageIsVouchedFor() throws {
        let messages = try Self.batch(5)
        var assembler = ChainAssembler()
        for index in [0, 1, 3] { _ = assembler.hold(messages[index], from: Self.peer, now: .zero) }
        #expect(assembler.release(vouchedBy: messages[4]).released.map(\.message.sequence) == [4])
        // Message 3 arrives late: message 4, now accepted, names it, so it is accepted and vouches for 2 and 1
        #expect(messages[3].previous == messages[2].id)
        #expect(assembler.release(vouchedBy: messages[2]).released.map(\.message.sequence) == [2, 1])
        #expect(assembler.count == 0)
    }

    @Test func forgedMessagesInTheAuthorsNameAreDroppedAsBrokenLinksAndCannotDisplaceTheRealOnes() throws {
        let messages = try Self.batch(3)
        // Mallory makes unsigned messages in alice's name for the same slots, with other content
        let forged = try (1...2).map { sequence in
            try MessageDraft(
                chat: Fixtures.invite.id, author: Fixtures.alice.publicKey, sequence: UInt64(sequence), lamport: 1,
                timestampMillis: 0,
                tag: .pollVoteUp, content: Array("forged".utf8)
            ).chained()
        }
        var assembler = ChainAssembler()
        for message in forged { _ = assembler.hold(message, from: Fixtures.mallory.publicKey, now: .zero) }
        for message in messages.dropLast() { _ = assembler.hold(message, from: Self.peer, now: .zero) }
        let (released, broken) = assembler.release(vouchedBy: messages[2])
        #expect(released.map(\.message.id) == [messages[1].id, messages[0].id])
        #expect(broken == 2 && assembler.count == 0)
    }

    @Test func anAcceptedHeadTakesItsOwnChainedCopyOutOfTheHolding() throws {
        // Given message 2's chained copy held (a member relayed it without its signature), then its
        // signed form accepted
        let messages = try Self.batch(2)
        let chainedCopy = try Self.batch(3)[1]
        #expect(chainedCopy.id == messages[1].id && !chainedCopy.isHead)
        var assembler = ChainAssembler()
        _ = assembler.hold(chainedCopy, from: Self.peer, now: .zero)
        _ = assembler.hold(messages[0], from: Self.peer, now: .zero)
        let (released, broken) = assembler.release(vouchedBy: messages[1])

        // Then the copy is gone with the chain below it: nothing is left to expire as headless
        #expect(released.map(\.message.sequence) == [1] && broken == 0)
        #expect(!assembler.isHeld(messages[1].id) && assembler.count == 0)
        #expect(assembler.expire(now: .seconds(60)) == 0)
    }

    @Test func whatNoHeadVouchesForExpiresAndIsCounted() throws {
        let messages = try Self.batch(3)
        var assembler = ChainAssembler()
        _ = assembler.hold(messages[0], from: Self.peer, now: .seconds(1))
        _ = assembler.hold(messages[1], from: Self.peer, now: .seconds(10))
        #expect(assembler.expire(now: .seconds(30)) == 0)
        #expect(assembler.expire(now: .seconds(31)) == 1)
        #expect(assembler.isHeld(messages[1].id) && !assembler.isHeld(messages[0].id))
        #expect(assembler.expire(now: .seconds(40)) == 1 && assembler.count == 0)
    }

    @Test func onePeerCannotHoldMoreThanItsShare() throws {
        var configuration = ChainAssembler.Configuration()
        configuration.maxHeldPerPeer = 2
        var assembler = ChainAssembler(configuration: configuration)
        let messages = try Self.batch(4)
        #expect(assembler.hold(messages[0], from: Fixtures.mallory.publicKey, now: .zero) == .held)
        #expect(assembler.hold(messages[1], from: Fixtures.mallory.publicKey, now: .zero) == .held)
        #expect(assembler.hold(messages[2], from: Fixtures.mallory.publicKey, now: .zero) == .full)
        #expect(assembler.hold(messages[2], from: Self.peer, now: .zero) == .held)
        _ = assembler.take(messages[0].id)
        #expect(assembler.hold(messages[0], from: Fixtures.mallory.publicKey, now: .zero) == .held)
    }

    @Test func heldBytesAreBoundedPerPeerAndInAll() throws {
        var configuration = ChainAssembler.Configuration()
        let messages = try Self.batch(5) // 1...4 chained, of one size
        let size = messages[0].encoded.count
        configuration.maxHeldBytesPerPeer = 2 * size + 1
        configuration.maxHeldBytes = 3 * size + 2
        var assembler = ChainAssembler(configuration: configuration)
        #expect(assembler.hold(messages[0], from: Fixtures.mallory.publicKey, now: .zero) == .held)
        #expect(assembler.hold(messages[1], from: Fixtures.mallory.publicKey, now: .zero) == .held)
        #expect(assembler.hold(messages[2], from: Fixtures.mallory.publicKey, now: .zero) == .full)
        #expect(assembler.hold(messages[2], from: Self.peer, now: .zero) == .held)
        // The whole holding is full in bytes: carol's first message evicts the oldest of mallory's, who holds the most
        #expect(assembler.hold(messages[3], from: Fixtures.carol.publicKey, now: .zero) == .heldEvicting(1))
        #expect(!assembler.isHeld(messages[0].id) && assembler.isHeld(messages[1].id) && assembler.count == 3)
    }
}
