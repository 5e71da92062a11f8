public import ParleyCore
public import ParleyCrypto

/// A local nickname for a peer, and where to reach it. Never sent anywhere.
public struct Contact: Sendable, Hashable, Codable {
    public var peer: PeerID
    /// Unique among contacts, ignoring case.
    public var name: String
    public var address: PeerAddress?

    public init(peer: PeerID, name: String, address: PeerAddress? = nil) {
        self.peer = peer
        self.name = name
        self.address = address
    }

    private enum CodingKeys: String, CodingKey { case peer, name, address }

    // The peer is hex in JSON, the form keys take in text everywhere else.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let hex = try container.decode(String.self, forKey: .peer)
        do {
            peer = try PeerID(rawRepresentation: Hex.decode(hex))
        } catch {
            throw DecodingError.dataCorruptedError(
                forKey: .peer, in: container, debugDescription: "peer must be a 64-digit hex public key: \(error)")
        }
        name = try container.decode(String.self, forKey: .name)
        address = try container.decodeIfPresent(PeerAddress.self, forKey: .address)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(peer.hex, forKey: .peer)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(address, forKey: .address)
    }
}

/// What `MessageStore.addContact` did: the contact as saved, and the one it replaced, if any.
public struct ContactUpdate: Sendable, Hashable {
    public let contact: Contact
    /// The contact for the same peer before the change; nil when the peer was not a contact.
    public let previous: Contact?

    public init(contact: Contact, previous: Contact?) {
        self.contact = contact
        self.previous = previous
    }
}
