internal import ParleyCore
public import ParleyStore

/// Live criteria queries, as BBM's live lists: a query that keeps answering as messages are stored.
extension Node {
    /// Each message matching `criteria` as it is stored from now on, in arrival order (the criteria's
    /// order, limit and local-number bounds are not used). Custom tags included; nothing is marked read.
    /// Ends when the consumer stops iterating; throws if the store fails.
    public func liveMessages(matching criteria: MessageCriteria) -> AsyncThrowingStream<StoredMessage, any Error> {
        let (stream, continuation) = AsyncThrowingStream<StoredMessage, any Error>.makeStream()
        // Subscribed before the starting point is read, so nothing stored in between is missed.
        let arrivals = arrivals(chat: criteria.chat)
        let task = Task {
            do {
                var last =
                    try store.messages(matching: MessageCriteria(chat: criteria.chat, limit: 1)).last?.localNumber ?? 0
                for await batch in arrivals {
                    guard batch.highestLocalNumber > last else { continue }
                    var query = criteria
                    (query.order, query.limit, query.oldestFirst) = (.arrival, nil, false)
                    (query.afterLocalNumber, query.beforeLocalNumber) = (last, batch.highestLocalNumber + 1)
                    query.beforePosition = nil
                    query.afterPosition = nil
                    for message in try store.messages(matching: query) { continuation.yield(message) }
                    last = batch.highestLocalNumber
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
