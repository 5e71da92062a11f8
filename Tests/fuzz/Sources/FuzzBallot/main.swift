import FuzzSupport
import ParleyCore
import ParleyCrypto

// Fixed before the fuzzer starts (top-level code runs in order): one chat, four electors with
// their ballot keys, a secret yes/no poll and a secret options poll over them, and ballots signed
// with libsodium's generator on a fixed stream, so the seeds are the same bytes in every process.
Fuzzer.useFixedRandomness(seed: 1)
let chat = try! ChatID(rawRepresentation: [UInt8](repeating: 7, count: 32))
let voters = (1...4).map { try! Identity(seed: [UInt8](repeating: UInt8($0), count: 32)) }
let ballotKeys = voters.map { try! BallotKeyPair(identity: $0, chat: chat.rawRepresentation) }
let electorate = zip(voters, ballotKeys).map { SecretPoll.Elector(member: $0.publicKey, key: $1.publicKey) }
let closes: Int64 = 1_800_000_000_000
let yesNo = try! SecretPoll(question: .yesNo("Pizza?"), closesAtMillis: closes, electorate: electorate)
let options = try! SecretPoll(
    question: .options(
        PollSpec(
            question: "Lunch?", options: ["pizza", "soup", "salad"], maxVotes: 2, anonymous: true,
            closesAtMillis: closes)),
    closesAtMillis: closes, electorate: electorate)
let yesNoMessage = try! signed(.poll, try! yesNo.encoded(), by: voters[0])
let optionsMessage = try! signed(.poll, try! options.encoded(), by: voters[0])
/// (poll message, secret poll) pairs a ballot is checked against.
let polls = [(yesNoMessage, yesNo), (optionsMessage, options)]
/// Each elector's "BallotKey" message: the tally counts nothing without them.
let keyMessages = zip(voters, ballotKeys).map { try! signed(.ballotKey, $1.publicKey.rawRepresentation, by: $0) }
/// Every linking tag an elector can have in each poll.
let electorTags = Set(
    polls.flatMap { poll in
        ballotKeys.map { try! LSAG.linkingTag(of: $0, scope: chat.rawRepresentation + poll.0.id.rawRepresentation) }
    })
/// The only ballots that verify: nobody else holds an elector's secret scalar.
let validBallots: [SecretBallot] = [
    try! cast(poll: 0, ["up"], voter: 0), try! cast(poll: 0, ["down"], voter: 1),
    try! cast(poll: 1, ["1", "3"], voter: 2), try! cast(poll: 1, ["2"], voter: 0),
]
let validEncodings = Set(validBallots.map(\.encoded))
// The seeds must be what they claim, or the invariants below would hold for nothing.
let seedsHold: Void = {
    for ballot in validBallots {
        let (message, secret) = polls.first { $0.0.id == ballot.poll }!
        precondition(
            (try? ballot.verify(chat: chat, poll: message.id, secret: secret)) != nil, "a seed ballot does not verify")
        precondition((try? SecretBallot(decoding: ballot.encoded)) == ballot, "a seed ballot does not decode")
    }
    precondition(
        polls.allSatisfy { (try? SecretPoll.decode(content: $0.0.content)) == $0.1 }, "a seed poll does not decode")
}()

// The secret-poll decoder (`SecretPoll.decode`, `Poll(content:)`), the ballot decoder
// (`SecretBallot(decoding:)`) with `verify` against both polls, and a ballot message through
// `SecretPollRules.check` and `tally`, all on the same input.
Fuzzer.main(seeds: seeds) { bytes in
    if let poll = try? SecretPoll.decode(content: bytes) { checkPoll(poll, bytes) }
    if let ballot = try? SecretBallot(decoding: bytes) { checkBallot(ballot, bytes) }
    if let message = try? Message(decoding: bytes), message.tag == .pollSecretBallot { checkMessage(message) }
}

func checkPoll(_ poll: SecretPoll, _ bytes: [UInt8]) {
    guard (SecretPoll.minElectorate...SecretPoll.maxElectorate).contains(poll.electorate.count),
        poll.electorate.map(\.member) == poll.electorate.map(\.member).sorted(),
        Set(poll.electorate.map(\.key)).count == poll.electorate.count
    else { Fuzzer.fail("a decoded secret poll has a bad electorate") }
    // What a node stores is the message's bytes; what it re-encodes must decode to the same poll.
    guard let encoded = try? poll.encoded(), let again = try? SecretPoll.decode(content: encoded),
        again.electorate == poll.electorate, again.closesAtMillis == poll.closesAtMillis,
        again.choiceIDs == poll.choiceIDs, (try? again.encoded()) == encoded
    else { Fuzzer.fail("a decoded secret poll does not survive a round trip") }
    guard case .secret(poll)? = try? Poll(content: bytes) else {
        Fuzzer.fail("Poll(content:) disagrees with SecretPoll.decode")
    }
}

func checkBallot(_ ballot: SecretBallot, _ bytes: [UInt8]) {
    // The fields, written again by hand, give back the input: the encoding is the only one.
    var again: [UInt8] = [1] + ballot.poll.rawRepresentation + [UInt8(ballot.selection.count)]
    for id in ballot.selection { again += [UInt8(id.utf8.count)] + Array(id.utf8) }
    let members = ballot.signature.responses.count
    again += [UInt8(members >> 8), UInt8(members & 0xff)] + ballot.signature.encoded
    guard ballot.encoded == bytes, again == bytes, ballot.id.rawRepresentation == BLAKE2b.hash256(bytes) else {
        Fuzzer.fail("a decoded ballot does not keep its encoding")
    }
    for (message, secret) in polls where (try? ballot.verify(chat: chat, poll: message.id, secret: secret)) != nil {
        guard validEncodings.contains(bytes), electorTags.contains(ballot.linkingTag) else {
            Fuzzer.fail("a ballot nobody signed verifies")
        }
    }
}

func checkMessage(_ message: Message) {
    for (poll, secret) in polls {
        let checked = SecretPollRules.check(message, poll: poll, secret: secret)
        let tally = SecretPollRules.tally(
            poll: poll, secret: secret, members: Set(voters.map(\.publicKey)), related: [message, message],
            ballotKeys: keyMessages,
            check: { SecretPollRules.check($0, poll: poll, secret: secret) })
        guard tally.electorateProblem == nil else {
            Fuzzer.fail("the fixed electorate is refused: \(tally.electorateProblem!)")
        }
        guard tally.counted + tally.conflicting + tally.rejected + tally.late + tally.byOthers <= 1 else {
            Fuzzer.fail("one message counted twice")
        }
        let votes = tally.counts.values.reduce(0, +)
        // Only the poll's creator publishes: a ballot anyone else put out counts nothing.
        if let checked, message.author == poll.author {
            guard validEncodings.contains(message.content), tally.counted == 1, votes == checked.ballot.selection.count,
                tally.countedTags == [checked.ballot.linkingTag]
            else { Fuzzer.fail("a checked ballot is not one that was signed, or is not counted once") }
        } else if tally.counted != 0 || votes != 0 {
            Fuzzer.fail("a ballot that does not check is counted")
        }
    }
}

func signed(_ tag: Tag, _ content: [UInt8], by author: Identity, references: [MessageReference] = []) throws -> Message
{
    try MessageDraft(
        chat: chat, author: author.publicKey, sequence: 1, lamport: 1, timestampMillis: 0, tag: tag, content: content,
        references: references
    ).signed(by: author)
}

func cast(poll index: Int, _ selection: [String], voter: Int) throws -> SecretBallot {
    try SecretBallot.cast(
        chat: chat, poll: polls[index].0.id, secret: polls[index].1, selection: selection, key: ballotKeys[voter])
}

/// Both polls' contents, the valid ballots, and each ballot as the message the poll's creator
/// publishes, and as one another member put out.
func seeds() throws -> [[UInt8]] {
    let messages = try validBallots.flatMap { ballot in
        try voters.prefix(2).map { author in
            try signed(
                .pollSecretBallot, ballot.encoded, by: author,
                references: [MessageReference(id: ballot.poll, tag: .pollSecretBallot)])
        }
    }
    return [try yesNo.encoded(), try options.encoded()] + validBallots.map(\.encoded) + messages.map(\.encoded)
}
