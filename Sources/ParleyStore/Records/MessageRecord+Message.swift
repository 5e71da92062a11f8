internal import Foundation
import ParleyCore

extension MessageRecord {
    /// A new row for `message`. The caller has checked that sequence and Lamport fit in an Int64.
    init(_ message: Message, localNumber: Int64, receivedAtMillis: Int64, state: DeliveryState) {
        self.init(
            id: message.id.blob, chatId: message.chat.blob, author: message.author.blob,
            seq: Int64(message.sequence), lamport: Int64(message.lamport), timestampMillis: message.timestampMillis,
            tag: message.tag.rawValue, content: Data(message.content), encoded: Data(message.encoded),
            localNumber: localNumber, receivedAtMillis: receivedAtMillis, state: state)
    }

    /// Rebuilds the signed message from its wire bytes, and checks they still hash to the row's id.
    func decodedMessage() throws(StoreError) -> Message {
        let message: Message
        do { message = try Message(decoding: Array(encoded)) } catch {
            throw .corrupt("message \(id.hexPrefix) does not decode: \(error)")
        }
        guard message.id.blob == id else { throw .corrupt("message \(id.hexPrefix) does not match its id") }
        return message
    }

    func storedMessage(deliveredTo: Int) throws(StoreError) -> StoredMessage {
        StoredMessage(
            message: try decodedMessage(), localNumber: localNumber, receivedAtMillis: receivedAtMillis,
            state: state, deliveredTo: deliveredTo)
    }
}
