public import ParleyCore
public import ParleyCrypto

/// How the messages of a batch given to `MessageStore.insert` vouch for each other (PROTOCOL §4.1): a
/// message accepted only because another one of the batch names it (a chained message, or a covered
/// head stored chained) is stored only if that one is. Stored alone, it would start a run that no
/// stored head vouches for: no peer syncing from here could accept it, and sync would send it again
/// every round. A covered head whose voucher is refused is stored signed instead, when its own
/// signature verifies: it then vouches for what lies below it.
public struct Vouching: Sendable {
    /// A message → the message of the batch at its next sequence that names it.
    let vouchers: [MessageID: MessageID]
    /// A covered head → its signed form.
    let signed: [MessageID: Message]

    public static let none = Vouching(vouchers: [:], signed: [:])

    private init(vouchers: [MessageID: MessageID], signed: [MessageID: Message]) {
        self.vouchers = vouchers
        self.signed = signed
    }

    /// Among a batch's accepted messages: each unsigned one is vouched for by the one at its next
    /// sequence naming it, if the batch holds it; a signed one stands on its signature. `covered` are
    /// the signed forms of the covered heads in the batch.
    public init(among messages: [Message], covered: [Message]) {
        var vouchers: [MessageID: MessageID] = [:]
        let unsigned = Dictionary(
            messages.filter { !$0.isHead }.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for message in messages {
            guard let named = message.previous, let below = unsigned[named],
                below.chat == message.chat, below.author == message.author, below.sequence &+ 1 == message.sequence
            else { continue }
            vouchers[named] = vouchers[named] ?? message.id
        }
        self.init(
            vouchers: vouchers, signed: Dictionary(covered.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        )
    }

    var isEmpty: Bool { vouchers.isEmpty }
}
