import Foundation
import ParleyCore
import ParleyCrypto
import ParleyNode
import ParleyStore

/// A secret poll counted by a node from its creator's publication (issue 38: 200 electors within
/// 4 s, using both cores). The node's store already holds every elector's ballot key and the poll;
/// then the creator's batch (one ballot per elector, then its close) is stored through
/// `MessageStore.insert`, as the receive path stores it once the batch is opened and its signatures
/// checked (those few milliseconds are left out), and the count is read through `Node.pollSnapshot`,
/// whose ring checks run on every core.
/// Beside it, the same ballots checked one after another on one core (`SecretPollRules.check`): the
/// limit that shows what the cores bring, measured in the same run.
struct SecretCount: Sendable {
    let electors: Int
    let countSeconds: Double
    let oneCoreSeconds: Double
    /// Signing the ballots (on every core) and storing the chat before the publication: printed by
    /// `parley-bench profile secretpoll`, so the phase's length is explained.
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

        let (valid, oneCoreSeconds) = await Measure.time {
            poll.publication.filter { SecretPollRules.check($0, poll: poll.poll, secret: poll.secret) != nil }.count
        }
        guard valid == poll.electors else {
            throw BenchError("\(valid) of \(poll.electors) ballots passed their check on one core")
        }
        return SecretCount(
            electors: poll.electors, countSeconds: countSeconds, oneCoreSeconds: oneCoreSeconds,
            setupSeconds: setupSeconds)
    }

    /// Seconds from storing the publication to the node's count of it.
    private static func count(_ peer: BenchPeer, _ poll: SecretPollChat) async throws -> Double {
        // Before the publication: not closed yet, so nothing is checked (warms the store's reads).
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
