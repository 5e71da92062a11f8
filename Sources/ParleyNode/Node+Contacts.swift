public import ParleyCore
public import ParleyCrypto
public import ParleyStore

/// The people this node knows outside its chats: contacts, whose invites are accepted, and where to reach them.
extension Node {
    /// Saves a contact (whose invites are then accepted) and, if given, where to reach it; says what it replaced.
    @discardableResult
    public func addContact(_ contact: Contact) async throws -> ContactUpdate {
        let update = try await store.addContact(contact)
        if let address = contact.address { await engine.learnAddress(address, for: contact.peer) }
        return update
    }

    /// Addresses learned outside the protocol (contacts' `--addr`).
    public func learnAddress(_ address: PeerAddress, for peer: PeerID) async {
        await engine.learnAddress(address, for: peer)
    }
}
