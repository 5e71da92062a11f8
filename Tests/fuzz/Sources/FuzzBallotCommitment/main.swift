import FuzzSupport
import ParleyCore
import ParleyCrypto

// Fixed before the fuzzer starts: one chat, four electors, a secret yes/no poll created by the first,
// two ballots, the creator's close, and the second elector's commitment to both ballots under fixed
// salts, so the seeds are the same bytes in every process.
Fuzzer.useFixedRandomness(seed: 2)
let chat = try! ChatID(rawRepresentation: [UInt8](repeating: 7, count: 32))
let members = (1...4).map { try! Identity(seed: [UInt8](repeating: UInt8($0), count: 32)) }
let ballotKeys = members.map { try! BallotKeyPair(identity: $0, chat: chat.rawRepresentation) }
let electorate = zip(members, ballotKeys).map { SecretPoll.Elector(member: $0.publicKey, key: $1.publicKey) }
let secret = try! SecretPoll(question: .yesNo("Pizza?"), closesAtMillis: 1_800_000_000_000, electorate: electorate)
let poll = try! signed(.poll, try! secret.encoded(), by: members[0], sequence: 1)
let keyMessages = zip(members, ballotKeys).map {
    try! signed(.ballotKey, $1.publicKey.rawRepresentation, by: $0, sequence: 2)
}
let ballots = [
    try! SecretBallot.cast(chat: chat, poll: poll.id, secret: secret, selection: ["up"], key: ballotKeys[2]).encoded,
    try! SecretBallot.cast(chat: chat, poll: poll.id, secret: secret, selection: ["down"], key: ballotKeys[3]).encoded,
]
let salts = [[UInt8](repeating: 0xa1, count: 32), [UInt8](repeating: 0xb2, count: 32)]
let commitment = try! BallotCommitment(salted: Array(zip(salts, ballots)))
let publisher = members[1]
let commitMessage = try! signed(.pollBallotCommit, commitment.encoded(), by: publisher, sequence: 3)
let close = try! signed(
    .pollClose, PollCoverage(holdings: [publisher.publicKey: .contiguous(3)]).encoded(), by: members[0], sequence: 3)
/// The reveals that may show a ballot left out: exactly these bytes, by the publisher.
let honestReveals = Set(zip(salts, ballots).map { BallotReveal(salt: $0, ballot: $1).encoded() })

// The commitment and reveal decoders, and a reveal message through the suppression rule beside the
// publisher's commitment and the creator's close.
Fuzzer.main(seeds: seeds) { bytes in
    if let decoded = try? BallotCommitment(decoding: bytes) {
        guard decoded.encoded() == bytes, (1...BallotCommitment.maxEntries).contains(decoded.entries.count) else {
            Fuzzer.fail("a decoded commitment does not keep its encoding")
        }
    }
    if let reveal = try? BallotReveal(decoding: bytes) {
        guard reveal.encoded() == bytes, reveal.salt.count == BallotCommitment.saltBytes else {
            Fuzzer.fail("a decoded reveal does not keep its encoding")
        }
    }
    if let message = try? Message(decoding: bytes), message.tag == .pollBallotReveal { checkReveal(message) }
}

func checkReveal(_ message: Message) {
    let tally = SecretPollRules.tally(
        poll: poll, secret: secret, members: Set(members.map(\.publicKey)),
        related: [commitMessage, close, message, message], ballotKeys: keyMessages,
        check: { SecretPollRules.check($0, poll: poll, secret: secret) })
    guard tally.counts.values.reduce(0, +) == 0, tally.counted == 0 else {
        Fuzzer.fail("a reveal was counted as a vote")
    }
    let shows =
        message.author == publisher.publicKey && message.chat == chat && honestReveals.contains(message.content)
        && message.references.contains(MessageReference(id: poll.id, tag: .pollBallotReveal))
    guard tally.suppressed == (shows ? 1 : 0), tally.suppressionRevealedBy == (shows ? [publisher.publicKey] : [])
    else {
        Fuzzer.fail("a reveal shows a ballot left out that no commitment holds, or one that does is not shown")
    }
}

func signed(
    _ tag: Tag, _ content: [UInt8], by author: Identity, sequence: UInt64, references: [MessageReference]? = nil
) throws -> Message {
    let references = references ?? (tag == .poll || tag == .ballotKey ? [] : [MessageReference(id: poll.id, tag: tag)])
    return try MessageDraft(
        chat: chat, author: author.publicKey, sequence: sequence, lamport: sequence, timestampMillis: 0, tag: tag,
        content: content, references: references
    ).signed(by: author)
}

/// The commitment, both reveals, and each reveal as the publisher's message and as another member's.
func seeds() throws -> [[UInt8]] {
    let reveals = zip(salts, ballots).map { BallotReveal(salt: $0, ballot: $1).encoded() }
    let messages = try reveals.flatMap { reveal in
        try [publisher, members[2]].map { try signed(.pollBallotReveal, reveal, by: $0, sequence: 4) }
    }
    return [commitment.encoded()] + reveals + messages.map(\.encoded)
}
