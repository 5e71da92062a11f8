import Foundation
import ParleyCore
import ParleyCrypto
import ParleyStore

/// A node's data directory holding a big chat: one poll, its votes spread through the history, and
/// text for the rest (`BenchWords`: words of Zipf-like frequencies, about 64 bytes each, for search). The node's own identity is a member; the messages are others'.
struct LargeStore: Sendable {
    let dataDirectory: String
    let keyPath: String
    let owner: Identity
    let chat: ChatID
    let poll: MessageID
    let votes: Int
    let voters: Int
    let buildSeconds: Double

    var storePath: String { "\(dataDirectory)/parley.sqlite" }

    static func build(_ scale: Scale, directory: String) async throws -> LargeStore {
        let data = "\(directory)/large"
        try FileManager.default.createDirectory(
            atPath: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let owner = try Identity.generate()
        try IdentityFile.write(owner, name: "owner", directory: data)
        let author = try Identity.generate()
        let voters = try (0..<scale.voters).map { _ in try Identity.generate() }
        let invite = try ChatInvite.create(
            by: author, title: "Large", members: [owner.publicKey] + voters.map(\.publicKey),
            createdAtMillis: BenchContent.epochMillis)
        let store = try MessageStore.open(path: "\(data)/parley.sqlite")
        _ = try await store.saveChat(invite, joinedAtMillis: BenchContent.epochMillis)

        let plan = Plan(total: scale.storeMessages, votes: scale.votes, voters: scale.voters)
        let chat = invite.id
        let pollDraft = plan.draft(0, chat: chat, author: author.publicKey, voters: voters.map(\.publicKey), poll: nil)
        let poll = try pollDraft.signed(by: author).id
        let voterKeys = voters.map(\.publicKey)
        let (_, seconds) = try await Measure.time {
            try await BulkMessages.fill(store, count: plan.total, owner: owner.publicKey) { index in
                let draft = plan.draft(index, chat: chat, author: author.publicKey, voters: voterKeys, poll: poll)
                return (draft, plan.voter(at: index).map { voters[$0] } ?? author)
            }
        }
        return LargeStore(
            dataDirectory: data, keyPath: "\(data)/owner.key", owner: owner, chat: chat, poll: poll,
            votes: plan.votes, voters: scale.voters, buildSeconds: seconds)
    }

    /// Which message is what: index 0 is the poll, every `spacing`-th after it a vote, the rest text.
    /// Votes go round the voters, who alternate up and down, so each voter's latest vote decides.
    struct Plan: Sendable {
        let total: Int
        let votes: Int
        let voters: Int
        var spacing: Int { max(1, (total - 1) / votes) }

        /// The vote number of the message at `index`, if it is a vote.
        func voteNumber(at index: Int) -> Int? {
            guard index > 0, (index - 1) % spacing == 0 else { return nil }
            let number = (index - 1) / spacing
            return number < votes ? number : nil
        }

        func voter(at index: Int) -> Int? { voteNumber(at: index).map { $0 % voters } }

        func draft(_ index: Int, chat: ChatID, author: PeerID, voters keys: [PeerID], poll: MessageID?) -> MessageDraft
        {
            let lamport = UInt64(index + 1)
            let timestamp = BenchContent.epochMillis + Int64(index)
            if index == 0 {
                return MessageDraft(
                    chat: chat, author: author, sequence: 1, lamport: lamport, timestampMillis: timestamp,
                    tag: .poll, content: Array("Pizza on Friday?".utf8))
            }
            if let number = voteNumber(at: index), let poll {
                let round = number / voters
                let choice: VoteChoice = (round + number % voters) % 2 == 0 ? .up : .down
                return MessageDraft(
                    chat: chat, author: keys[number % voters], sequence: UInt64(round + 1), lamport: lamport,
                    timestampMillis: timestamp, tag: choice.tag, content: [],
                    references: [MessageReference(id: poll, tag: choice.tag)])
            }
            // The author's sequence: one for the poll, plus every earlier text message.
            let earlierVotes = min(votes, index <= 1 ? 0 : (index - 2) / spacing + 1)
            let sequence = UInt64(index - earlierVotes + 1)
            return MessageDraft(
                chat: chat, author: author, sequence: sequence, lamport: lamport, timestampMillis: timestamp,
                tag: .text, content: BenchWords.text(index))
        }
    }
}
