import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// A member's claimed clocks order its own messages and nothing else, and a closed poll stays as its
/// creator first closed it: every node shows one result, even against a member who forges.
struct ClaimedClockTests {
    /// `author`'s next message in `chat`, forged outside its node but linked to its chain (so it is no fork)
    /// and signed as a head, pushed to `recipients` and stored on the author's own node too, as a hostile
    /// client would.
    static func forge(
        _ draft: (UInt64) -> MessageDraft, by author: LossyNetworkConvergenceTests.Peer, in invite: ChatInvite,
        to recipients: [LossyNetworkConvergenceTests.Peer]
    ) async throws -> Message {
        let (chat, me) = (invite.id, author.identity.publicKey)
        let sequence = try author.node.store.nextSequence(chat: chat, author: me)
        var linked = draft(sequence)
        linked.previous =
            sequence > 1 ? try author.node.store.messageID(chat: chat, author: me, sequence: sequence - 1) : nil
        let message = try linked.sealedAndSigned(in: invite, by: author.identity)
        for peer in recipients { await author.node.transmit([.message(message.encoded)], to: peer.identity.publicKey) }
        _ = try await author.node.store.insert([message], receivedAtMillis: 0, ownAuthor: author.identity.publicKey)
        return message
    }

    @Test func aMemberClaimingTheLargestClockReordersNoOneElsesMessages() async throws {
        // Given nora and python in a chat with mallory
        let bed = try await PumpedPeers.make(count: 3)
        let (nora, python, mallory) = (bed.peers[0], bed.peers[1], bed.peers[2])
        try await bed.running {
            let invite = try await nora.node.createChat(
                title: "Snakes", members: [python.identity.publicKey, mallory.identity.publicKey])
            try await bed.settle()

            // When mallory posts a message claiming the largest clock
            let absurd = try await Self.forge(
                { sequence in
                    MessageDraft(
                        chat: invite.id, author: mallory.identity.publicKey, sequence: sequence, lamport: ChatClock.max,
                        timestampMillis: 0,
                        tag: .text, content: Array("last word".utf8))
                }, by: mallory, in: invite, to: [nora, python])
            try await bed.settle()
            #expect(try nora.node.store.message(absurd.id) != nil && python.node.store.message(absurd.id) != nil)
            // and nora, python and nora again write, python reacting 🔥 to nora's first and taking it back
            var sent: [StoredMessage] = []
            for (peer, text) in [(nora, "n1"), (python, "p1"), (nora, "n2")] {
                sent.append(try await peer.node.sendText(chat: invite.id, text))
                try await bed.settle()
            }
            _ = try await python.node.react(chat: invite.id, message: sent[0].id, type: "🔥")
            try await bed.settle()
            _ = try await python.node.unreact(chat: invite.id, message: sent[0].id, type: "🔥")
            try await bed.settle()

            // Then their clocks kept rising one by one, far below mallory's claim
            #expect(sent.map(\.message.lamport) == sent.indices.map { sent[0].message.lamport + UInt64($0) })
            #expect(sent[0].message.lamport < ChatClock.maxStep)
            // and every node lists them as they were sent, mallory's message after them, and no 🔥
            for peer in bed.peers {
                let history = try peer.node.messages(
                    matching: MessageCriteria(chat: invite.id, tags: [.text], order: .history))
                #expect(history.map(\.message.text) == ["n1", "p1", "n2", "last word"])
                #expect(try peer.node.reactions(chat: invite.id, message: sent[0].id).reactions.isEmpty)
            }
        }
    }

    @Test func aSecondCloseByTheCreatorChangesNoResultAndIsCounted() async throws {
        // Given mallory's yes/no poll, nora's up vote and python's down vote, and mallory's close covering both
        let bed = try await PumpedPeers.make(count: 3)
        let (nora, python, mallory) = (bed.peers[0], bed.peers[1], bed.peers[2])
        try await bed.running {
            let invite = try await nora.node.createChat(
                title: "Snakes", members: [python.identity.publicKey, mallory.identity.publicKey])
            try await bed.settle()
            let poll = try await mallory.node.createPoll(chat: invite.id, question: "Pythons?")
            try await bed.settle()
            _ = try await nora.node.postVote(chat: invite.id, poll: poll.id, choices: ["up"])
            _ = try await python.node.postVote(chat: invite.id, poll: poll.id, choices: ["down"])
            try await bed.settle()
            let close = try await mallory.node.closePoll(chat: invite.id, poll: poll.id)
            try await bed.settle()

            // When mallory sends a second close, later in her chain but claiming a lower clock, that covers only nora
            let noraHolds = try mallory.node.store.nextSequence(chat: invite.id, author: nora.identity.publicKey) - 1
            let noraOnly = PollCoverage(holdings: [nora.identity.publicKey: .contiguous(noraHolds)])
            let second = try await Self.forge(
                { sequence in
                    MessageDraft(
                        chat: invite.id, author: mallory.identity.publicKey, sequence: sequence,
                        lamport: close.message.lamport - 1,
                        timestampMillis: close.message.timestampMillis, tag: .pollClose, content: noraOnly.encoded(),
                        references: [MessageReference(id: poll.id, tag: .pollClose)])
                }, by: mallory, in: invite, to: [nora, python])
            try await bed.settle()

            // Then every node holds it and still shows the first close's result, 1–1, with one later close counted
            for peer in bed.peers {
                #expect(try peer.node.store.message(second.id) != nil)
                let tally = try #require(try peer.node.pollSnapshot(chat: invite.id, poll: poll.id).tally)
                #expect((tally.up, tally.down) == (1, 1))
                #expect(tally.close?.message == close.id && tally.close?.laterCloses == 1)
            }
        }
    }
}
