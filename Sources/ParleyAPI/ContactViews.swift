import ParleyCore
import ParleyCrypto
import ParleyStore

/// The answer to `contactsAdd`: the contact as saved (the fields of `ContactView`), and what the
/// request changed, so a front end can say "renamed" or "already a contact" instead of "added".
public struct ContactAddedView: Codable, Sendable, Hashable {
    public enum Change: String, Codable, Sendable, Hashable {
        /// The peer was not a contact.
        case added
        /// The peer was a contact under `previousName`.
        case renamed
        /// Same name, new address.
        case readdressed
        /// The contact was already there, as given.
        case unchanged
    }

    public let id: String
    public let name: String
    public let address: String?
    public let change: Change
    /// The name before a rename; nil otherwise.
    public let previousName: String?

    init(_ update: ContactUpdate) {
        let contact = update.contact
        id = contact.peer.hex
        name = contact.name
        address = contact.address?.description
        previousName = update.previous.flatMap { $0.name == contact.name ? nil : $0.name }
        change =
            switch update.previous {
            case nil: .added
            case let previous? where previous.name != contact.name: .renamed
            case let previous? where previous.address != contact.address: .readdressed
            default: .unchanged
            }
    }
}
