import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// Invites from someone who is not (yet) a contact wait for the user instead of vanishing.
struct PendingInviteTests {
    /// `count` peers with sessions to each other: bob (`peers[0]`) has no contacts, and `peers[1]`
    /// knows bob and his address, so its invites reach him as a stranger's.
    static func strangerAndBob(count: Int = 2) async throws -> PumpedPeers {
        let bed = try await PumpedPeers.make(count: count, introduced: false)
        try await bed.peers[1].node.addContact(
            Contact(peer: bed.peers[0].identity.publicKey, name: "bob", address: bed.peers[0].node.localAddress))
        return bed
    }

    @Test func aStrangersInviteWaitsAndAcceptingJoinsWithTheHistory() async throws {
        // Given dave, who knows bob, but whom bob has never added
        let bed = try await Self.strangerAndBob()
        let (bob, dave) = (bed.peers[0], bed.peers[1])
        try await bed.running {
            // When dave creates a chat with bob and posts in it
            let invite = try await dave.node.createChat(title: "Board games", members: [bob.identity.publicKey])
            let hello = try await dave.node.sendText(chat: invite.id, "Thursday?")
            try await bed.settle()

            // Then bob holds the invite, has joined nothing, and dave's node says it waits for bob
            #expect(try bob.node.pendingInvites().map(\.invite.id) == [invite.id])
            #expect(try bob.node.chat(invite.id) == nil)
            #expect(try dave.node.membersWaiting(chat: invite.id) == [bob.identity.publicKey])

            // When bob accepts
            _ = try await bob.node.acceptInvite(chat: invite.id, contactName: "dave")
            try await bed.settle()

            // Then he is in the chat with what was posted before, dave is his contact, and nobody waits
            #expect(try bob.node.message(hello.id)?.message.text == "Thursday?")
            #expect(try bob.node.contacts().map(\.name) == ["dave"])
            #expect(try bob.node.pendingInvites().isEmpty)
            #expect(try dave.node.membersWaiting(chat: invite.id).isEmpty)
        }
    }

    @Test func aDeclinedInviteStaysDeclinedWhenPushedAgain() async throws {
        let bed = try await Self.strangerAndBob()
        let (bob, dave) = (bed.peers[0], bed.peers[1])
        try await bed.running {
            let invite = try await dave.node.createChat(title: "Spam", members: [bob.identity.publicKey])
            try await bed.settle()
            // When bob declines, and dave's node pushes the invite again (its retries, a new message)
            try await bob.node.declineInvite(chat: invite.id)
            await dave.node.transmit([.invite(invite.encoded)], to: bob.identity.publicKey)
            _ = try await dave.node.sendText(chat: invite.id, "still there?")
            try await bed.advance(by: .seconds(5))
            // Then nothing is pending and nothing is joined
            #expect(try bob.node.pendingInvites().isEmpty)
            #expect(try bob.node.chat(invite.id) == nil)
            await #expect(throws: (any Error).self) { try await bob.node.declineInvite(chat: invite.id) }
        }
    }

    @Test func oneStrangersInviteFloodKeepsItsNewestTenAndCountsTheRest() async throws {
        // Given mallory, a stranger to bob, with a session to him
        let bed = try await Self.strangerAndBob()
        let (bob, mallory) = (bed.peers[0], bed.peers[1])
        try await bed.running {
            // When she pushes 30 invites, all at the same claimed time
            var made: [ChatID] = []
            for index in 0..<30 {
                let invite = try ChatInvite.create(
                    by: mallory.identity, kind: .group, title: "Prize \(index)", members: [bob.identity.publicKey],
                    key: try ChatKey.generate(), createdAtMillis: 0)
                made.append(invite.id)
                await mallory.node.transmit([.invite(invite.encoded)], to: bob.identity.publicKey)
                try await bed.settle()
            }
            // Then bob holds her newest 10, in arrival order; the 20 oldest were dropped and counted
            #expect(
                try bob.node.pendingInvites().map(\.invite.id)
                    == Array(made.suffix(MessageStore.maxPendingInvitesPerCreator)))
            #expect(await bob.node.status().rejections["pendingInviteDropped"] == 20)
            #expect(await bob.node.status().rejections["uninvited"] == 30)
        }
    }

    @Test func aHeldOrDeclinedInviteIsNotAskedForAgainBySync() async throws {
        // Given dave, who knows bob, and bob, who holds dave's invite (a stranger's)
        let bed = try await Self.strangerAndBob()
        let (bob, dave) = (bed.peers[0], bed.peers[1])
        try await bed.running {
            let held = try await dave.node.createChat(title: "Held", members: [bob.identity.publicKey])
            let declined = try await dave.node.createChat(title: "Declined", members: [bob.identity.publicKey])
            _ = try await dave.node.sendText(chat: held.id, "hello?")
            try await bed.settle()
            try await bob.node.declineInvite(chat: declined.id)

            // When many sync rounds go by
            try await bed.advance(by: .seconds(30))

            // Then each invite was held once: bob's node did not ask for them again (no needInvite), so
            // nothing was re-pushed, re-checked or counted
            #expect(await bob.node.status().rejections["uninvited"] == 2)
            #expect(try bob.node.pendingInvites().map(\.invite.id) == [held.id])
            #expect(try bob.node.chat(held.id) == nil && bob.node.chat(declined.id) == nil)
            // a sync request for either is not answered with needInvite (for an unknown chat it is)
            let unknown = try ChatID(rawRepresentation: Array(repeating: 7, count: 32))
            for chat in [held.id, declined.id] {
                #expect(try await bob.node.syncReply(chat: chat, vector: [:], to: dave.identity.publicKey).isEmpty)
            }
            #expect(
                try await bob.node.syncReply(chat: unknown, vector: [:], to: dave.identity.publicKey) == [
                    .needInvite(unknown)
                ])
            // and an invite pushed again directly is not counted again either
            await dave.node.transmit([.invite(held.encoded), .invite(declined.encoded)], to: bob.identity.publicKey)
            try await bed.settle()
            #expect(await bob.node.status().rejections["uninvited"] == 2)
        }
    }

    @Test func addingTheCreatorAsAContactJoinsItsHeldInviteAtTheNextSync() async throws {
        let bed = try await Self.strangerAndBob()
        let (bob, dave) = (bed.peers[0], bed.peers[1])
        try await bed.running {
            let invite = try await dave.node.createChat(title: "Board games", members: [bob.identity.publicKey])
            let hello = try await dave.node.sendText(chat: invite.id, "Thursday?")
            try await bed.settle()
            #expect(try bob.node.pendingInvites().map(\.invite.id) == [invite.id])

            // When bob adds dave as a contact (without answering the invite)
            try await bob.node.addContact(Contact(peer: dave.identity.publicKey, name: "dave"))
            try await bed.advance(by: .seconds(5))

            // Then the next sync brings the invite back and bob joins with the history
            #expect(try bob.node.chat(invite.id) != nil)
            #expect(try bob.node.message(hello.id)?.message.text == "Thursday?")
            #expect(try bob.node.pendingInvites().isEmpty)
        }
    }

    @Test func acceptingWithATakenNameFailsAndLeavesNothingBehind() async throws {
        let bed = try await Self.strangerAndBob(count: 3)
        let (bob, dave, carol) = (bed.peers[0], bed.peers[1], bed.peers[2])
        try await bob.node.addContact(Contact(peer: carol.identity.publicKey, name: "carol"))
        try await bed.running {
            let invite = try await dave.node.createChat(title: "Board games", members: [bob.identity.publicKey])
            try await bed.settle()

            // When bob accepts, naming dave as his existing contact carol
            await #expect(throws: (any Error).self) {
                try await bob.node.acceptInvite(chat: invite.id, contactName: "carol")
            }

            // Then nothing changed: no chat, no new contact, the invite still waits
            #expect(try bob.node.chat(invite.id) == nil)
            #expect(try bob.node.contacts().map(\.name) == ["carol"])
            #expect(try bob.node.pendingInvites().map(\.invite.id) == [invite.id])
        }
    }

    @Test func acceptingFromACreatorAlreadyAContactRenamesItWhenANameIsGiven() async throws {
        let bed = try await Self.strangerAndBob()
        let (bob, dave) = (bed.peers[0], bed.peers[1])
        try await bed.running {
            let invite = try await dave.node.createChat(title: "One", members: [bob.identity.publicKey])
            try await bed.settle()
            // Given bob added dave as a contact after the invite was held
            try await bob.node.addContact(Contact(peer: dave.identity.publicKey, name: "d"))

            // When bob accepts, naming him "dave"
            _ = try await bob.node.acceptInvite(chat: invite.id, contactName: "dave")

            // Then he is in the chat and the contact is renamed (not silently kept)
            #expect(try bob.node.chat(invite.id) != nil)
            #expect(try bob.node.contacts().map(\.name) == ["dave"])
        }
    }
}
