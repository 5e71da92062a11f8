internal import Foundation
internal import GRDB
public import ParleyCore

// The address book: local names for peers. Names are unique ignoring case, so "bob" and "Bob"
// cannot name two different keys.
extension MessageStore {
    /// Adds or replaces the contact for `contact.peer`, and says what it replaced. A name held by another
    /// peer is an error. Without an address, the one already known is kept: renaming a contact does not
    /// lose where it listens.
    @discardableResult
    public func addContact(_ contact: Contact) async throws(StoreError) -> ContactUpdate {
        let name = contact.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw .invalid("a contact name cannot be empty") }
        // SQLite counts a text only up to its first NUL, so such a name would trip the table's check.
        guard !name.unicodeScalars.contains("\u{0}") else {
            throw .invalid("a contact name cannot contain NUL characters")
        }
        let peerId = contact.peer.blob
        let (saved, previous) = try await write("saving contact '\(name)'") { db in
            // The column's NOCASE collation makes this comparison case-insensitive, like the UNIQUE constraint.
            if let owner = try ContactRecord.filter({ $0.name == name && $0.peerId != peerId }).fetchOne(db) {
                throw StoreError.nameTaken(name, owner: owner.peerId.hexPrefix)
            }
            let previous = try ContactRecord.fetchOne(db, key: peerId)
            let record = ContactRecord(
                peerId: peerId, name: name, address: contact.address?.description ?? previous?.address)
            try record.save(db)
            return (record, previous)
        }
        return ContactUpdate(
            contact: try Self.contact(saved),
            previous: try previous.map { record throws(StoreError) in try Self.contact(record) })
    }

    /// All contacts, sorted by name ignoring case.
    public func contacts() throws(StoreError) -> [Contact] {
        let records = try read("listing contacts") { db in
            try ContactRecord.order(ContactRecord.Columns.name).fetchAll(db)
        }
        return try records.map { record throws(StoreError) in try Self.contact(record) }
    }

    /// The contact with this name, ignoring case.
    public func contact(named name: String) throws(StoreError) -> Contact? {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        let record = try read("finding contact '\(name)'") { db in
            try ContactRecord.filter { $0.name == trimmed }.fetchOne(db)
        }
        return try record.map { record throws(StoreError) in try Self.contact(record) }
    }

    public func contact(peer: PeerID) throws(StoreError) -> Contact? {
        let record = try read("finding contact \(peer.shortHex)") { db in try ContactRecord.fetchOne(db, key: peer.blob)
        }
        return try record.map { record throws(StoreError) in try Self.contact(record) }
    }

    private static func contact(_ record: ContactRecord) throws(StoreError) -> Contact {
        let address: PeerAddress?
        do { address = try record.address.map { text throws(CoreError) in try PeerAddress(parsing: text) } } catch {
            throw .corrupt("contact '\(record.name)' has a bad address: \(error)")
        }
        return Contact(peer: try PeerID.fromBlob(record.peerId, "contact peer"), name: record.name, address: address)
    }
}
