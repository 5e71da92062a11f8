import Foundation
import ParleyCore
import ParleyCrypto
import ParleyNode
import ParleyStore

/// A secret poll counted by a node from its creator's publication (issue 38: 200 electors within
/// 4 s, using both cores). The node's store already holds every elector's ballot key and the poll;
/// then the creator's batch (one ballot per elector, then its close) is stored as the receive path
/// stores it, and the count is read through `Node.pollSnapshot`, whose ring checks run on every core.
/// Beside it, the same ballots checked one after another on one core (`SecretPollRules.check`): the
/// limit that shows what the cores bring, measured in the same run.
struct SecretCount: Sendable {
    let electors: Int
    let countSeconds: Double
    let oneCoreSeconds: Double
    /// Signing the ballots (on every core) and storing the chat before the publication: not timed
    /// against anything, shown so the phase's length is explained.
    let setupSeconds: Double

    /// 4 s for 200 electors. A count costs one ring check of n steps per elector, so a smaller run's
    /// limit is the same target scaled by n².
    var limitSeconds: Double { 4 * pow(Double(electors) / 200, 2) }

    static func measure(_ scale: Scale, directory: String) async throws -> SecretCount {
        let started = ContinuousClock.now
        let poll = try await SecretPollChat.build(electors: scale.secretElectors, directory: directory)
        let setupSeconds = (ContinuousClock.now - started).seconds

        let peer = try await BenchPeer.make(identity: poll.owner, storePath: poll.storePath)
        let counted: Result<Double, any Error>
        do { counted = .success(try await count(peer, poll)) } catch { counted = .failure(error) }
        await peer.node.shutdown()
        let countSeconds = try counted.get()

        let (valid, oneCoreSeconds) = try await Measure.time {
            poll.publication.filter { SecretPollRules.check($0, poll: poll.poll, secret: poll.secret) != nil }.count
        }
        guard valid == poll.electors else {
            throw BenchError("\(valid) of \(poll.electors) ballots passed their check on one core")
        }
        return SecretCount(
            electors: poll.electors, countSeconds: countSeconds, oneCoreSeconds: oneCoreSeconds,
            setupSeconds: setupSeconds)
    }

    /// Seconds from the publication's arrival to the node's count of it.
    private static func count(_ peer: BenchPeer, _ poll: SecretPollChat) async throws -> Double {
        // Before the publication: the poll is open and nothing is checked (warms the poll's decoding).
        guard try tally(peer.node, poll).close == nil else { throw BenchError("the secret poll closed early") }
        let (tally, seconds) = try await Measure.time {
            let outcomes = try await peer.store.insert(
                poll.publication, receivedAtMillis: BenchContent.epochMillis, ownAuthor: poll.owner.publicKey)
            guard outcomes.allSatisfy({ $0.storedMessage != nil }) else {
                throw BenchError("the node refused part of the creator's publication")
            }
            return try Self.tally(peer.node, poll)
        }
        try poll.expect(tally)
        return seconds
    }

    private static func tally(_ node: Node, _ poll: SecretPollChat) throws -> SecretTally {
        guard case let .secret(_, status) = try node.pollSnapshot(chat: poll.chat, poll: poll.poll.id).state else {
            throw BenchError("the node does not read the poll as a secret poll")
        }
        return status.tally
    }
}

/// A node's data directory holding a chat with a secret yes/no poll of `electors` members (the
/// node's own identity among them; the creator another), and the creator's publication of it, not
/// yet stored: a ballot from every elector, alternately yes and no, then the creator's close.
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
        let reference = { (tag: Tag) in [MessageReference(id: poll.id, tag: tag)] }
        var published = ballots.map { drafts.next(creator, .pollSecretBallot, $0.encoded, references: reference) }
        let coverage = PollCoverage(holdings: drafts.sequences.mapValues { AuthorHoldings.contiguous($0) })
        published.append(drafts.next(creator, .pollClose, coverage.encoded(), references: reference))
        let publication = try await BulkMessages.sign(
            try links.chain(0..<published.count) { published[$0] })

        let storePath = "\(data)/parley.sqlite"
        try IdentityFile.write(owner, name: "owner", directory: data)
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
                "the secret poll counted \(tally.counted) of \(electors) (closed: \(tally.closed), rejected \(tally.rejected), electorate problem: \(tally.electorateProblem.map { "\($0)" } ?? "none"))"
            )
        }
    }

    /// Drafts in one chat, each author's sequences and the chat's clock counted up.
    private struct Drafts {
        let chat: ChatID
        var sequences: [PeerID: UInt64] = [:]
        var lamport: UInt64 = 0

        mutating func next(
            _ author: Identity, _ tag: Tag, _ content: [UInt8], references: (Tag) -> [MessageReference] = { _ in [] }
        ) -> (draft: MessageDraft, signer: Identity) {
            let sequence = sequences[author.publicKey, default: 0] + 1
            sequences[author.publicKey] = sequence
            lamport += 1
            let draft = MessageDraft(
                chat: chat, author: author.publicKey, sequence: sequence, lamport: lamport,
                timestampMillis: BenchContent.epochMillis + Int64(lamport), tag: tag, content: content,
                references: references(tag))
            return (draft, author)
        }
    }
}
