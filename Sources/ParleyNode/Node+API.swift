import Foundation
import ParleyCrypto
import Logging
public import ParleyCore
public import ParleyStore

/// The library API: what the CLI (through the control socket) and embedding apps call.
extension Node {
    /// Creates a chat, stores it, and pushes the signed invite to every member until acknowledged.
    public func createChat(title: String, members: [PeerID]) async throws -> ChatInvite {
        let invite = try ChatInvite.create(by: identity, title: title, members: members, createdAtMillis: clock.wallMillis)
        _ = try await store.saveChat(invite, joinedAtMillis: clock.wallMillis)
        for member in invite.members where member != me {
            await send(await engine.reliable(
                .invite(invite.encoded), key: .invite(invite.id, to: member), to: member, now: clock.now, wallMillis: clock.wallMillis))
        }
        return invite
    }

    /// Signs, stores (durably, before anything is sent) and pushes a message to every other member.
    public func send(chat: ChatID, tag: Tag, content: [UInt8], references: [MessageReference] = []) async throws -> StoredMessage {
        guard let members = try store.members(of: chat) else { throw NodeError.notFound("no chat \(chat.shortHex)") }
        guard members.contains(me) else { throw NodeError.notAMember(chat) }
        let (sequence, lamport) = try chatState.reserve(chat: chat, author: me, store: store)
        let message = try MessageDraft(
            chat: chat, author: me, sequence: sequence, lamport: lamport, timestampMillis: clock.wallMillis,
            tag: tag, content: content, references: references
        ).signed(by: identity)
        let outcome = try await store.insert([message], receivedAtMillis: clock.wallMillis, ownAuthor: me)
        guard case let .inserted(stored)? = outcome.first else {
            throw NodeError.invalid("message \(message.id.shortHex) could not be stored: \(String(describing: outcome.first))")
        }
        let now = clock.now
        for member in members where member != me {
            await send(await engine.reliable(
                .message(message.encoded), key: .message(message.id, to: member), to: member, now: now, wallMillis: clock.wallMillis))
        }
        try await store.markSent([message.id])
        return try store.message(message.id) ?? stored
    }

    public func sendText(chat: ChatID, _ text: String) async throws -> StoredMessage {
        try await send(chat: chat, tag: .text, content: Array(text.utf8))
    }

    /// A BBM poll: a "Poll" message whose content is the question.
    public func createPoll(chat: ChatID, question: String) async throws -> StoredMessage {
        guard !question.trimmingCharacters(in: .whitespaces).isEmpty else { throw NodeError.invalid("a poll needs a question") }
        return try await send(chat: chat, tag: .poll, content: Array(question.utf8))
    }

    /// Votes once. The `pollVote` local data guards against a second vote from this user;
    /// the tally rule alone would also count only the latest vote per author.
    public func vote(chat: ChatID, poll: MessageID, choice: VoteChoice) async throws -> StoredMessage {
        _ = try requirePoll(poll, in: chat)
        if let previous = try store.localData(message: poll, key: LocalDataKey.pollVote) {
            throw NodeError.alreadyVoted(poll, choice: previous)
        }
        let vote = try await send(chat: chat, tag: choice.tag, content: [], references: [MessageReference(id: poll, tag: choice.tag)])
        try await store.setLocalData(message: poll, key: LocalDataKey.pollVote, value: choice.rawValue)
        return vote
    }

    /// The tally, computed from the criteria queries on the poll's references, never from counters kept aside.
    public func pollResults(chat: ChatID, poll: MessageID) throws -> (poll: StoredMessage, tally: PollTally) {
        let stored = try requirePoll(poll, in: chat)
        var votes: [Message] = []
        for tag: Tag in [.pollVoteUp, .pollVoteDown] {
            let criteria = MessageCriteria(chat: chat, tag: tag, referencing: poll, referenceTag: tag)
            votes += try store.messages(matching: criteria).map(\.message)
        }
        return (stored, PollRules.tally(poll: stored.message, candidates: votes))
    }

    private func requirePoll(_ poll: MessageID, in chat: ChatID) throws -> StoredMessage {
        guard let stored = try store.message(poll), stored.message.chat == chat else {
            throw NodeError.notFound("no message \(poll.shortHex) in this chat")
        }
        guard stored.message.tag == .poll else { throw NodeError.notAPoll(poll) }
        return stored
    }

    /// Protocol health: rejection counters, datagrams, peers.
    public func status() async -> NodeStatus {
        NodeStatus(
            peer: me.hex,
            listen: localAddress.description,
            rejections: await engine.rejections.reduce(into: [:]) { $0[$1.key.rawValue] = $1.value },
            datagramsIn: await engine.datagramsIn,
            datagramsOut: await engine.datagramsOut,
            connectedPeers: await engine.connectedPeers.map(\.hex).sorted(),
            knownPeers: await engine.knownPeers.reduce(into: [:]) { $0[$1.key.hex] = $1.value.description },
            pendingRetransmits: await engine.pendingRetransmits)
    }

    /// Addresses learned outside the protocol (contacts' `--addr`).
    public func learnAddress(_ address: PeerAddress, for peer: PeerID) async {
        await engine.learnAddress(address, for: peer)
    }
}

/// Keys of the local data the node itself keeps.
public enum LocalDataKey {
    public static let pollVote = "pollVote"
}

public struct NodeStatus: Sendable, Codable, Hashable {
    public let peer: String
    public let listen: String
    public let rejections: [String: Int]
    public let datagramsIn: Int
    public let datagramsOut: Int
    public let connectedPeers: [String]
    public let knownPeers: [String: String]
    public let pendingRetransmits: Int
}
