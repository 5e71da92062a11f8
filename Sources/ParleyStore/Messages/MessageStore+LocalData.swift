internal import GRDB
public import ParleyCore

// Private notes on a message (read marks, stars, drafts): stored next to it, never part of `Message`,
// never sent. Deleted with the message.
extension MessageStore {
    public func localData(message: MessageID, key: String) throws(StoreError) -> String? {
        try read("reading local data '\(key)' of message \(message.shortHex)") { db in
            try LocalDataRecord.fetchOne(db, key: ["message_id": message.blob, "key": key])?.value
        }
    }

    /// Sets or, with nil, deletes a value. The message must be stored.
    public func setLocalData(message: MessageID, key: String, value: String?) async throws(StoreError) {
        try await write("setting local data '\(key)' of message \(message.shortHex)", keepsMemberships: true) { db in
            guard try MessageRecord.exists(db, key: message.blob) else { throw StoreError.unknownMessage(message.hex) }
            if let value {
                try LocalDataRecord(messageId: message.blob, key: key, value: value).save(db)
            } else {
                try LocalDataRecord.deleteOne(db, key: ["message_id": message.blob, "key": key])
            }
        }
    }

    /// Deletes a value and returns it; nil when the key had none. The message must be stored.
    public func deleteLocalData(message: MessageID, key: String) async throws(StoreError) -> String? {
        try await write("deleting local data '\(key)' of message \(message.shortHex)", keepsMemberships: true) { db in
            guard try MessageRecord.exists(db, key: message.blob) else { throw StoreError.unknownMessage(message.hex) }
            let existing = try LocalDataRecord.fetchOne(db, key: ["message_id": message.blob, "key": key])
            try existing?.delete(db)
            return existing?.value
        }
    }

    /// Sets a value only if the key has none, atomically; returns the value already there otherwise.
    /// Two concurrent callers cannot both win (the double-vote guard rests on this).
    public func claimLocalData(message: MessageID, key: String, value: String) async throws(StoreError) -> String? {
        try await write("claiming local data '\(key)' of message \(message.shortHex)", keepsMemberships: true) { db in
            guard try MessageRecord.exists(db, key: message.blob) else { throw StoreError.unknownMessage(message.hex) }
            if let existing = try LocalDataRecord.fetchOne(db, key: ["message_id": message.blob, "key": key]) {
                return existing.value
            }
            try LocalDataRecord(messageId: message.blob, key: key, value: value).insert(db)
            return nil
        }
    }

    public func allLocalData(message: MessageID) throws(StoreError) -> [String: String] {
        let records = try read("reading local data of message \(message.shortHex)") { db in
            try LocalDataRecord.filter { $0.messageId == message.blob }.fetchAll(db)
        }
        return Dictionary(records.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }
}
