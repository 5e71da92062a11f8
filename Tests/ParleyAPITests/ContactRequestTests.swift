import ParleyAPI
import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import Testing

/// `contactsAdd` says what it did, so adding a known key is not reported as a new contact.
struct ContactRequestTests {
    @Test func addingAKnownKeySaysWhetherItRenamedReaddressedOrChangedNothing() async throws {
        // Given a node and bob's key
        let service = APIService(node: try APITestNode.make(), selfName: "me")
        let bob = try Identity.generate().publicKey.hex
        func add(_ name: String, _ address: String? = nil) async throws -> ContactAddedView? {
            try APIJSON.decode(
                APIResponse<ContactAddedView>.self,
                from: await service.respond(to: .contactsAdd(peer: bob, name: name, address: address))
            ).result
        }

        // When bob is added, added again, renamed, then given an address
        let added = try await add("bob")
        let again = try await add("bob")
        let renamed = try await add("robert")
        let readdressed = try await add("robert", "127.0.0.1:7002")

        // Then each answer says so, naming the previous name on a rename
        #expect(added?.change == .added && added?.previousName == nil)
        #expect(again?.change == .unchanged)
        #expect(renamed?.change == .renamed && renamed?.previousName == "bob" && renamed?.name == "robert")
        #expect(readdressed?.change == .readdressed && readdressed?.address == "127.0.0.1:7002")
        // And the answer still has every field of a contact view
        let json = await service.respond(to: .contactsAdd(peer: bob, name: "robert", address: nil))
        #expect(try APIJSON.decode(APIResponse<ContactView>.self, from: json).result?.id == bob)
    }
}
