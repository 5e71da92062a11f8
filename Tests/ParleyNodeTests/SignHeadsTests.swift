import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import Testing

/// Which messages of a send batch the node signs (PROTOCOL §4.1): the last of each chat, the one before
/// a change of recipients, and enough that no member is pushed a run longer than the push window.
struct SignHeadsTests {
    typealias Item = (index: Int, message: Message, recipients: [PeerID])

    static let me = try! Identity.generate()
    static let bob = try! Identity.generate().publicKey
    static let carol = try! Identity.generate().publicKey

    /// `count` linked messages of this node in `chat`, each to `recipients(position)`.
    static func items(chats: [ChatID], count: Int, recipients: (Int) -> [PeerID] = { _ in [bob, carol] }) throws
        -> [Item]
    {
        var previous: [ChatID: MessageID] = [:]
        var sequence: [ChatID: UInt64] = [:]
        return try (0..<count).map { position in
            let chat = chats[position % chats.count]
            sequence[chat, default: 0] += 1
            let message = try MessageDraft(
                chat: chat, author: me.publicKey, sequence: sequence[chat]!, previous: previous[chat],
                lamport: UInt64(position + 1),
                timestampMillis: 0, tag: .text, content: []
            ).chained()
            previous[chat] = message.id
            return (position, message, recipients(position))
        }
    }

    static func chat(_ byte: UInt8) throws -> ChatID {
        try ChatID(rawRepresentation: [UInt8](repeating: byte, count: 32))
    }

    @Test func theLastMessageOfEachChatIsSignedAndOnlyIt() throws {
        var batch = try Self.items(chats: [Self.chat(1), Self.chat(2)], count: 10)
        Node.signHeads(&batch, identity: Self.me)
        #expect(batch.indices.filter { batch[$0].message.isHead } == [8, 9])
        for item in batch where item.message.isHead { try item.message.verifySignature() }
    }

    @Test func theMessageBeforeAChangeOfRecipientsIsSigned() throws {
        // After an own membership change at position 4, carol (removed) gets nothing more
        var batch = try Self.items(chats: [Self.chat(1)], count: 8) { $0 <= 4 ? [Self.bob, Self.carol] : [Self.bob] }
        Node.signHeads(&batch, identity: Self.me)
        #expect(batch.indices.filter { batch[$0].message.isHead } == [4, 7])
    }

    @Test func noMemberIsPushedMoreChainedMessagesInARowThanThePushWindowAcrossChats() throws {
        var batch = try Self.items(chats: [Self.chat(1), Self.chat(2)], count: 200)
        Node.signHeads(&batch, identity: Self.me)
        var run = 0, longest = 0
        for item in batch {
            run = item.message.isHead ? 0 : run + 1
            longest = max(longest, run)
        }
        #expect(longest < Node.maxChainedRun, "\(longest) chained messages in a row")
        #expect(batch.count { $0.message.isHead } < 10)
    }
}
