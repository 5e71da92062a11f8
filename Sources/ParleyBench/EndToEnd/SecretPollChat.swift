import Foundation
import ParleyCore
import ParleyCrypto
import ParleyStore

/// A node's data directory holding a legacy (unsealed) chat with a secret yes/no poll of `electors`
/// members (the node's own identity among them; the creator another), and the creator's publication
/// of it, not yet stored: a ballot from every elector, alternately yes and no, then the creator's
/// close. Unsealed, so the count's cost is the ring checks: a keyed chat adds opening about 400
/// contents per count, about a millisecond.
struct SecretPollChat: Sendable {
    let owner: Identity
    let storePath: String
    let chat: ChatID
    let secret: SecretPoll
    let poll: Message
    let publication: [Message]
    let electors: Int

    var expectedUp: Int { (electors + 1) / 2 }

    static func build(electors count: Int, directory: String) async throws -> SecretPollChat {
        let data = "\(directory)/secret"
        try FileManager.default.createDirectory(
            atPath: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let owner = try Identity.generate()
        let creator = try Identity.generate()
        let voters = [owner, creator] + (try (2..<count).map { _ in try Identity.generate() })
        let invite = try ChatInvite.create(
            by: creator, title: "Secret", members: voters.filter { $0.publicKey != creator.publicKey }.map(\.publicKey),
            createdAtMillis: BenchContent.epochMillis)
        let chat = invite.id
        let keys = try voters.map { try BallotKeyPair(identity: $0, chat: chat.rawRepresentation) }
        let secret = try SecretPoll(
            question: .yesNo("Pizza on Friday?"), closesAtMillis: BenchContent.epochMillis + 60_000,
            electorate: zip(voters, keys).map { SecretPoll.Elector(member: $0.publicKey, key: $1.publicKey) })

        var drafts = Drafts(chat: chat)
        let ballotKeys = zip(voters, keys).map { drafts.next($0, .ballotKey, $1.publicKey.rawRepresentation) }
        let pollDraft = drafts.next(creator, .poll, try secret.encoded())
        var links = BulkMessages.ChainLinks()
        let before = try await BulkMessages.sign(
            try links.chain(0..<(ballotKeys.count + 1)) { index in
                index < ballotKeys.count ? ballotKeys[index] : pollDraft
            })
        let poll = before[before.count - 1]

        let ballots = try await cast(secret, keys: keys, chat: chat, poll: poll.id)
        var published = ballots.map { drafts.next(creator, .pollSecretBallot, $0.encoded, referencing: poll.id) }
        let coverage = PollCoverage(holdings: drafts.sequences.mapValues { AuthorHoldings.contiguous($0) })
        published.append(drafts.next(creator, .pollClose, coverage.encoded(), referencing: poll.id))
        let publication = try await BulkMessages.sign(
            try links.chain(0..<published.count) { published[$0] })

        let storePath = "\(data)/parley.sqlite"
        let store = try MessageStore.open(path: storePath)
        _ = try await store.saveChat(invite, joinedAtMillis: BenchContent.epochMillis)
        let outcomes = try await store.insert(
            before, receivedAtMillis: BenchContent.epochMillis, ownAuthor: owner.publicKey)
        guard outcomes.allSatisfy({ $0.storedMessage != nil }) else {
            throw BenchError("the store refused part of the secret poll's chat")
        }
        return SecretPollChat(
            owner: owner, storePath: storePath, chat: chat, secret: secret, poll: poll, publication: publication,
            electors: count)
    }

    /// Every elector's ballot, alternately yes and no, signed on every core.
    private static func cast(_ secret: SecretPoll, keys: [BallotKeyPair], chat: ChatID, poll: MessageID) async throws
        -> [SecretBallot]
    {
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        return try await withThrowingTaskGroup(of: [(Int, SecretBallot)].self) { group in
            for worker in 0..<workers {
                group.addTask {
                    try stride(from: worker, to: keys.count, by: workers).map { index in
                        let choice = index.isMultiple(of: 2) ? VoteChoice.up : .down
                        return (
                            index,
                            try SecretBallot.cast(
                                chat: chat, poll: poll, secret: secret, selection: [choice.rawValue], key: keys[index])
                        )
                    }
                }
            }
            var ballots: [(Int, SecretBallot)] = []
            for try await part in group { ballots += part }
            return ballots.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// The count a node must reach from the publication: closed, every elector counted once.
    func expect(_ tally: SecretTally) throws {
        guard tally.closed, tally.electorateProblem == nil, tally.counted == electors, tally.rejected == 0,
            tally.counts[VoteChoice.up.rawValue] == expectedUp,
            tally.counts[VoteChoice.down.rawValue] == electors - expectedUp
        else {
            throw BenchError(
                "the secret poll counted \(tally.counted) of \(electors), \(tally.counts) (expected \(expectedUp) up; closed: \(tally.closed), rejected \(tally.rejected), electorate problem: \(tally.electorateProblem.map { "\($0)" } ?? "none"))"
            )
        }
    }

    /// Drafts in one chat, each author's sequences and the chat's clock counted up; a message about the
    /// poll references it with its own tag, as the rules ask.
    private struct Drafts {
        let chat: ChatID
        var sequences: [PeerID: UInt64] = [:]
        var lamport: UInt64 = 0

        mutating func next(
            _ author: Identity, _ tag: Tag, _ content: [UInt8], referencing poll: MessageID? = nil
        ) -> (draft: MessageDraft, signer: Identity) {
            let sequence = sequences[author.publicKey, default: 0] + 1
            sequences[author.publicKey] = sequence
            lamport += 1
            let draft = MessageDraft(
                chat: chat, author: author.publicKey, sequence: sequence, lamport: lamport,
                timestampMillis: BenchContent.epochMillis + Int64(lamport), tag: tag, content: content,
                references: poll.map { [MessageReference(id: $0, tag: tag)] } ?? [])
            return (draft, author)
        }
    }
}
