import FuzzSupport
import ParleyCore
import ParleyCrypto

// Set before the fuzzer starts (top-level code runs in order). Fixed identities, so the seed poll
// is the same in every run and mutated votes can target it.
let alice = try! Identity(seed: [UInt8](repeating: 1, count: 32))
let bob = try! Identity(seed: [UInt8](repeating: 2, count: 32))
let seedInvite = try! ChatInvite.create(
    by: alice, title: "Seed chat", members: [bob.publicKey], createdAtMillis: 0, nonce: [UInt8](repeating: 0, count: 16)
)
let seedPoll = try! message(.poll, "Pizza?")

// The decoders of signed objects: `Message(decoding:)` and `ChatInvite(decoding:)`, then what the
// node does next with a message (signature check, tally rules).
Fuzzer.main(seeds: seeds) { bytes in
    if let message = try? Message(decoding: bytes) {
        if message.encoded != bytes { Fuzzer.fail("a message does not keep its encoding") }
        _ = try? message.verifySignature()
        _ = message.text
        let tally = PollRules.tally(poll: seedPoll, candidates: [message, message])
        if tally.up + tally.down > 1 { Fuzzer.fail("one author counted twice") }
    }
    if let invite = try? ChatInvite(decoding: bytes) {
        if invite.encoded != bytes || !invite.isMember(invite.creator) { Fuzzer.fail("an invite broke its invariants") }
    }
}

func message(_ tag: Tag, _ text: String, references: [MessageReference] = []) throws -> Message {
    try MessageDraft(
        chat: seedInvite.id, author: alice.publicKey, sequence: 1, lamport: 1, timestampMillis: 0, tag: tag,
        content: Array(text.utf8), references: references
    ).signed(by: alice)
}

/// Valid messages (text, poll, vote with a reference) and a valid invite.
func seeds() throws -> [[UInt8]] {
    [
        seedInvite.encoded, seedPoll.encoded, try message(.text, "hello").encoded,
        try message(.pollVoteUp, "", references: [MessageReference(id: seedPoll.id, tag: .pollVoteUp)]).encoded,
    ]
}
