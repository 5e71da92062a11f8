import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// Invites from someone who is not (yet) a contact wait for the user instead of vanishing.
struct PendingInviteTests {
    @Test func aStrangersInviteWaitsAndAcceptingJoinsWithTheHistory() async throws {
        // Given dave, who knows bob, but whom bob has never added
        let bed = try await PumpedPeers.make(count: 2, introduced: false)
        let (bob, dave) = (bed.peers[0], bed.peers[1])
        try await dave.node.addContact(Contact(peer: bob.identity.publicKey, name: "bob", address: bob.node.localAddress))
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
        let bed = try await PumpedPeers.make(count: 2, introduced: false)
        let (bob, dave) = (bed.peers[0], bed.peers[1])
        try await dave.node.addContact(Contact(peer: bob.identity.publicKey, name: "bob", address: bob.node.localAddress))
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

    @Test func anInviteFloodKeepsTheNewestHundredAndCountsTheRest() async throws {
        // Given mallory, a stranger to bob, with a session to him
        let bed = try await PumpedPeers.make(count: 2, introduced: false)
        let (bob, mallory) = (bed.peers[0], bed.peers[1])
        try await mallory.node.addContact(Contact(peer: bob.identity.publicKey, name: "bob", address: bob.node.localAddress))
        try await bed.running {
            // When she pushes 120 invites, one at a time
            var made: [ChatID] = []
            for index in 0..<120 {
                let invite = try ChatInvite.create(
                    by: mallory.identity, kind: .group, title: "Prize \(index)", members: [bob.identity.publicKey],
                    key: try ChatKey.generate(), createdAtMillis: Int64(index))
                made.append(invite.id)
                await mallory.node.transmit([.invite(invite.encoded)], to: bob.identity.publicKey)
                try await bed.advance(by: .milliseconds(50)) // each arrives at its own time
            }
            // Then bob holds the newest 100, and the 20 oldest were dropped and counted
            #expect(Set(try bob.node.pendingInvites().map(\.invite.id)) == Set(made.suffix(100)))
            #expect(await bob.node.status().rejections["pendingInviteDropped"] == 20)
        }
    }
}
