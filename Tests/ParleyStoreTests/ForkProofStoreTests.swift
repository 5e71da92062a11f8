import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import ParleyTestKit
import Testing

/// Fork proofs as the store keeps them (PROTOCOL.md §4.4): per (chat, author), the proof with the
/// lowest forked sequence, in a joined chat only.
struct ForkProofStoreTests {
    /// Two different messages of `author` for one slot of its chain.
    static func proof(chat: ChatID, author: Identity, sequence: UInt64) throws -> ForkProof {
        try ForkProof.forged(chat: chat, author: author, sequence: sequence)
    }

    @Test func theProofWithTheLowestForkedSequenceIsKept() async throws {
        // Given a joined chat, and proofs of Bob's fork at 2, then at 3, then at 1
        let fixture = try await StoreFixture.make()
        let store = fixture.store
        let atTwo = try Self.proof(chat: fixture.chat, author: fixture.bob, sequence: 2)
        let atThree = try Self.proof(chat: fixture.chat, author: fixture.bob, sequence: 3)
        let atOne = try Self.proof(chat: fixture.chat, author: fixture.bob, sequence: 1)

        // When they are recorded in that order
        let kept = [
            try await store.recordFork(atTwo, atMillis: 10), try await store.recordFork(atThree, atMillis: 20),
            try await store.recordFork(atOne, atMillis: 30),
        ]

        // Then the first is kept, a later fork changes nothing, and an earlier one replaces it
        #expect(kept == [true, false, true])
        #expect(try store.forks(chat: fixture.chat).forkedFrom == [fixture.bob.publicKey: 1])
        let encodings = try store.forkProofEncodings(chat: fixture.chat)
        #expect(encodings.map(\.author) == [fixture.bob.publicKey])
        #expect(encodings.map(\.sequence) == [1])
        #expect(encodings.map(\.encoded) == [atOne.encoded])
        let all = try store.allForks()
        #expect(all.map(\.chat) == [fixture.chat])
        #expect(all.map(\.sequence) == [1])
        #expect(all.map(\.foundAtMillis) == [30])
    }

    @Test func aProofForAChatNotJoinedIsNotKept() async throws {
        // Given a store that joined no chat
        let store = try MessageStore.inMemory()
        let carol = try Identity.generate()
        let proof = try Self.proof(
            chat: ChatID(rawRepresentation: [UInt8](repeating: 7, count: 32)), author: carol, sequence: 1)

        // When a proof of a fork in another chat is recorded, then nothing is kept
        #expect(try await store.recordFork(proof, atMillis: 0) == false)
        #expect(try store.allForks().isEmpty)
    }
}
