internal import GRDB
public import ParleyCore

extension MessageStore {
    /// The chat's Lamport clock as a node starting now holds it (PROTOCOL §11): `ChatClock.observing`
    /// applied to the stored history clocks in ascending order, so a clock more than
    /// `ChatClock.maxStep` above every lower one, and all above it, are left out. Each step is one
    /// index search for the highest clock within reach, so an honest chat takes one or two.
    public func chatClock(chat: ChatID) throws(StoreError) -> UInt64 {
        try read("reading the Lamport clock of chat \(chat.shortHex)") { db in
            let clock = Self.historyClock()
            let highest = try db.cachedStatement(
                sql: "SELECT MAX(\(clock)) FROM messages WHERE chat_id = ? AND \(clock) <= ?")
            var reached: UInt64 = 0
            while true {
                let reach = Int64(clamping: reached + min(ChatClock.maxStep, ChatClock.max - reached))
                guard let found = try Int64.fetchOne(highest, arguments: [chat.blob, reach]).map(UInt64.init),
                    found > reached
                else {
                    return reached
                }
                reached = found
            }
        }
    }
}
