internal import Foundation
import ParleyCore

extension MessageRecord {
    /// Rebuilds the signed message from its wire bytes, and checks they still hash to the row's id.
    func decodedMessage() throws(StoreError) -> Message {
        let message: Message
        do { message = try Message(decoding: Array(encoded)) } catch {
            throw .corrupt("message \(id.hexPrefix) does not decode: \(error)")
        }
        guard message.id.blob == id else { throw .corrupt("message \(id.hexPrefix) does not match its id") }
        return message
    }

    func storedMessage(deliveredTo: Int, readBy: Int = 0, recipients: Int = 0) throws(StoreError) -> StoredMessage {
        StoredMessage(
            message: try decodedMessage(), localNumber: localNumber, receivedAtMillis: receivedAtMillis,
            state: state, deliveredTo: deliveredTo, readBy: readBy, recipients: recipients,
            historyClock: historyLamport.map { UInt64($0) })
    }
}
