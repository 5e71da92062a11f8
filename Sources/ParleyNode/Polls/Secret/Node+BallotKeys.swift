import Logging
public import ParleyCore
import ParleyCrypto
import ParleyStore

/// Ballot keys: the ristretto255 key a member's secret ballots are signed with, derived from its
/// identity and published once per chat as a "BallotKey" message (docs/BALLOTS.md §1). A chat has
/// none until someone prepares a secret poll there: the first key published is the call, and every
/// member's node answers it with its own, now or when it joins or comes back.
extension Node {
    /// This node's ballot key pair in `chat`.
    func ballotKeyPair(chat: ChatID) throws -> BallotKeyPair {
        try BallotKeyPair(identity: identity, chat: chat.rawRepresentation)
    }

    /// Publishes this node's ballot key in `chat` unless it already did, which asks every other
    /// member's node to publish its own. Creating a secret poll does this first.
    public func prepareSecretPolls(chat: ChatID) async throws {
        guard try store.members(of: chat)?.contains(me) == true else { throw NodeError.notAMember(chat) }
        guard !secretBallots.hasPublishedKey(in: chat) else { return }
        let published = try store.messages(matching: MessageCriteria(chat: chat, tag: .ballotKey))
        if !published.contains(where: { $0.message.author == me }) {
            _ = try await send(
                chat: chat, tag: .ballotKey, content: try ballotKeyPair(chat: chat).publicKey.rawRepresentation)
        }
        secretBallots.notePublishedKey(in: chat)
    }

    /// Another member's ballot key arrived: this node publishes its own if it has not (and is a member).
    func answerBallotKeyCall(chat: ChatID) async throws {
        guard !secretBallots.hasPublishedKey(in: chat), try store.members(of: chat)?.contains(me) == true else {
            return
        }
        try await prepareSecretPolls(chat: chat)
    }

    /// At start: answers the calls that arrived while this node was stopped or before it joined. A
    /// failure is logged and tried again when the next key arrives or at the next start.
    func answerPendingBallotKeyCalls() async {
        do {
            for chat in try store.chats()
            where
                !(try store.messages(matching: MessageCriteria(chat: chat.invite.id, tag: .ballotKey, limit: 1)).isEmpty)
            {
                try await answerBallotKeyCall(chat: chat.invite.id)
            }
        } catch {
            logger.warning("publishing ballot keys failed", metadata: ["error": "\(error)"])
        }
    }

    /// The current members with the ballot key each published first (by the rules' order), sorted by
    /// member, and the members without one: a new secret poll's electorate. A key two members claim
    /// is left out for both.
    func currentElectorate(chat: ChatID) throws -> (electors: [SecretPoll.Elector], withoutKey: [PeerID]) {
        guard let members = try store.members(of: chat), members.contains(me) else { throw NodeError.notAMember(chat) }
        var keys: [PeerID: (message: Message, key: BallotPublicKey)] = [:]
        for stored in try store.messages(matching: MessageCriteria(chat: chat, tag: .ballotKey)) {
            let message = stored.message
            guard let key = try? BallotPublicKey(rawRepresentation: message.content) else { continue }
            if let current = keys[message.author], !PollRules.isLater(current.message, than: message) { continue }
            keys[message.author] = (message, key)
        }
        let withoutKey = members.filter { keys[$0] == nil }.sorted()
        // A key claimed by two members (a copy of someone's published key) is left out for both: a
        // ring lists each key once, and the copier could not sign with it anyway.
        let claims = Dictionary(grouping: keys.values.map(\.key), by: { $0 }).mapValues(\.count)
        let electors = members.compactMap { member in
            keys[member].flatMap { claims[$0.key] == 1 ? SecretPoll.Elector(member: member, key: $0.key) : nil }
        }
        return (electors.sorted { $0.member < $1.member }, withoutKey)
    }
}
