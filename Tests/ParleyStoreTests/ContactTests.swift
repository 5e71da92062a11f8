import Foundation
import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import Testing

@Suite struct ContactTests {
    @Test func addsUpdatesAndFindsContacts() async throws {
        let store = try MessageStore.inMemory()
        let bob = try Identity.generate().publicKey
        let carol = try Identity.generate().publicKey

        try await store.addContact(Contact(peer: carol, name: "carol"))
        try await store.addContact(Contact(peer: bob, name: "Bob", address: PeerAddress(host: "::1", port: 4000)))
        try await store.addContact(Contact(peer: bob, name: "Bobby", address: PeerAddress(host: "::1", port: 4001)))

        #expect(try store.contacts().map(\.name) == ["Bobby", "carol"])
        #expect(try store.contact(named: "BOBBY")?.address == PeerAddress(host: "::1", port: 4001))
        #expect(try store.contact(named: "Bob") == nil)
        #expect(try store.contact(peer: carol)?.name == "carol")
    }

    @Test(arguments: ["\u{0}bob", "bo\u{0}b"])
    func refusesANameWithANULCharacterAsInvalid(name: String) async throws {
        let store = try MessageStore.inMemory()
        let bob = try Identity.generate().publicKey
        await #expect(throws: StoreError.invalid("a contact name cannot contain NUL characters")) {
            try await store.addContact(Contact(peer: bob, name: name))
        }
        #expect(try store.contacts().isEmpty)
    }

    @Test func addingAKnownPeerSaysWhatItReplacedAndKeepsItsAddress() async throws {
        // Given bob, a contact with an address
        let store = try MessageStore.inMemory()
        let bob = try Identity.generate().publicKey
        let address = PeerAddress(host: "127.0.0.1", port: 7002)
        let added = try await store.addContact(Contact(peer: bob, name: "bob", address: address))

        // When he is added again under another name, without an address
        let renamed = try await store.addContact(Contact(peer: bob, name: "robert"))

        // Then the first add replaced nothing, the second replaced "bob", and the address is kept
        #expect(added.previous == nil)
        #expect(renamed.previous == Contact(peer: bob, name: "bob", address: address))
        #expect(renamed.contact == Contact(peer: bob, name: "robert", address: address))
        #expect(try store.contact(peer: bob) == renamed.contact)
    }

    @Test func refusesANameUsedByAnotherPeerIgnoringCase() async throws {
        let store = try MessageStore.inMemory()
        let bob = try Identity.generate().publicKey
        let impostor = try Identity.generate().publicKey
        try await store.addContact(Contact(peer: bob, name: "Bob"))

        let error = await #expect(throws: StoreError.self) {
            try await store.addContact(Contact(peer: impostor, name: "bob"))
        }

        #expect(error?.isNameTaken == true)
        #expect(error?.description.contains("the contact name 'bob' is already used by peer") == true)
        #expect(try store.contact(named: "bob")?.peer == bob)
    }

    @Test func encodesThePeerAsHex() throws {
        let bob = try Identity.generate().publicKey
        let contact = Contact(peer: bob, name: "Bob", address: PeerAddress(host: "127.0.0.1", port: 9))

        let json = try JSONEncoder().encode(contact)

        #expect(String(decoding: json, as: UTF8.self).contains("\"\(bob.hex)\""))
        #expect(try JSONDecoder().decode(Contact.self, from: json) == contact)
    }
}
