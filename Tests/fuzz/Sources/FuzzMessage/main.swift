import FuzzSupport
import ParleyCore
import ParleyCrypto

// The decoders of signed objects: `Message(decoding:)` and `ChatInvite(decoding:)`, then what the
// node does next with a message (signature check, tally rules).
Fuzzer.main(seeds: seeds) { bytes in
    if let message = try? Message(decoding: bytes) {
        if message.encoded != bytes { Fuzzer.fail("a message does not keep its encoding") }
        _ = try? message.verifySignature()
        _ = message.text
        let tally = PollRules.tally(poll: message, candidates: [message, message])
        if tally.up + tally.down > 1 { Fuzzer.fail("one author counted twice") }
    }
    if let invite = try? ChatInvite(decoding: bytes) {
        if invite.encoded != bytes || !invite.isMember(invite.creator) { Fuzzer.fail("an invite broke its invariants") }
    }
}

/// Valid messages (text, poll, vote with a reference) and a valid invite.
func seeds() throws -> [[UInt8]] {
    let alice = try Identity.generate(), bob = try Identity.generate()
    let invite = try ChatInvite.create(by: alice, title: "Seed chat", members: [bob.publicKey], createdAtMillis: 0)
    func message(_ tag: Tag, _ text: String, references: [MessageReference] = []) throws -> Message {
        try MessageDraft(chat: invite.id, author: alice.publicKey, sequence: 1, lamport: 1, timestampMillis: 0, tag: tag,
                         content: Array(text.utf8), references: references).signed(by: alice)
    }
    let poll = try message(.poll, "Pizza?")
    return [
        invite.encoded, poll.encoded, try message(.text, "hello").encoded,
        try message(.pollVoteUp, "", references: [MessageReference(id: poll.id, tag: .pollVoteUp)]).encoded,
    ]
}
