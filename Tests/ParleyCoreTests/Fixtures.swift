import ParleyCore
import ParleyCrypto

/// Deterministic identities and signed messages for the core tests.
enum Fixtures {
    static func identity(_ byte: UInt8) -> Identity {
        // A fixed 32-byte seed always makes a valid identity.
        (try? Identity(seed: [UInt8](repeating: byte, count: 32)))!
    }

    static let alice = identity(1)
    static let bob = identity(2)
    static let carol = identity(3)
    static let mallory = identity(9)

    static let invite =
        (try? ChatInvite.create(
            by: alice, title: "Lunch", members: [bob.publicKey, carol.publicKey], createdAtMillis: 1_000,
            nonce: [UInt8](repeating: 0, count: 16)))!

    static func message(
        _ author: Identity, seq: UInt64, lamport: UInt64, tag: Tag = .text, text: String = "",
        refs: [MessageReference] = [], chat: ChatID = invite.id
    ) throws -> Message {
        try MessageDraft(
            chat: chat, author: author.publicKey, sequence: seq, lamport: lamport, timestampMillis: 42,
            tag: tag, content: Array(text.utf8), references: refs
        ).signed(by: author)
    }

    static func vote(_ author: Identity, _ choice: VoteChoice, on poll: Message, seq: UInt64, lamport: UInt64) throws
        -> Message
    {
        try message(
            author, seq: seq, lamport: lamport, tag: choice.tag, refs: [MessageReference(id: poll.id, tag: choice.tag)])
    }
}
