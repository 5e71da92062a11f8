internal import GRDB
public import ParleyCore

// Live queries, BBM's live lists: GRDB re-runs the query after each commit that touches the tables
// it read, and the stream yields only when the result changed.
extension MessageStore {
    /// Yields the current matches at once, then again after every change to them. Ends with a
    /// `StoreError` if the database fails; cancelling the consumer stops the observation.
    public func observe(_ criteria: MessageCriteria) -> AsyncThrowingStream<[StoredMessage], any Error> {
        stream(
            ValueObservation.tracking { db in try Self.fetch(criteria, db) }.removeDuplicates(),
            context: "observing messages of chat \(criteria.chat.shortHex)")
    }

    /// Yields the chat's message count now and whenever it changes: a cheap trigger for tallies.
    public func observeChat(_ chat: ChatID) -> AsyncThrowingStream<Int, any Error> {
        stream(
            ValueObservation.tracking { db in
                try MessageRecord.filter { $0.chatId == chat.blob }.fetchCount(db)
            }.removeDuplicates(), context: "observing chat \(chat.shortHex)")
    }

    private func stream<Reducer: ValueReducer>(
        _ observation: ValueObservation<Reducer>, context: String
    ) -> AsyncThrowingStream<Reducer.Value, any Error> where Reducer.Value: Sendable {
        let reader = observationReader
        return AsyncThrowingStream { continuation in
            let cancellable = observation.start(
                in: reader, scheduling: .task,
                onError: { error in continuation.finish(throwing: StoreError.database(context, error)) },
                onChange: { value in continuation.yield(value) })
            continuation.onTermination = { _ in cancellable.cancel() }
        }
    }
}
