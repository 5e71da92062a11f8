import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import Testing

/// A store belongs to the identity that first claimed it; another key gets that owner back, and the
/// record survives closing the store.
@Suite struct StoreOwnerTests {
    @Test func theFirstClaimAdoptsAndLaterClaimsGetTheSameOwner() async throws {
        // Given a store on disk that no node has claimed yet
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("parley.sqlite")
        let alice = try Identity.generate().publicKey
        let bob = try Identity.generate().publicKey
        let store = try MessageStore.open(path: path)
        #expect(try store.owner() == nil)

        // When alice claims it, then bob
        #expect(try await store.claimOwner(alice) == alice)
        #expect(try await store.claimOwner(bob) == alice)

        // Then alice is still the owner, also after reopening
        #expect(try store.owner() == alice)
        let reopened = try MessageStore.open(path: path)
        #expect(try await reopened.claimOwner(bob) == alice)
        #expect(try await reopened.claimOwner(alice) == alice)
    }
}
