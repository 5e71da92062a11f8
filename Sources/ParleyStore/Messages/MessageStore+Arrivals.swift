public import ParleyCore
internal import Synchronization

/// What one insert transaction stored in one chat.
public struct StoredBatch: Sendable, Hashable {
    public let chat: ChatID
    /// In local-number order.
    public let ids: [MessageID]
    public let highestLocalNumber: Int64
}

extension MessageStore {
    /// Yields each batch of messages stored in `chat` by this store, right after its transaction
    /// commits. Unlike `observe`, nothing is re-queried and the writer never waits for a reader, so
    /// it is the cheap way to follow a chat live. A consumer that falls more than
    /// `StoredBatch.bufferedBatches` batches behind loses the oldest: read by local number to catch up.
    public func arrivals(chat: ChatID) -> AsyncStream<StoredBatch> {
        arrivalHub.subscribe(chat: chat)
    }
}

extension StoredBatch {
    public static let bufferedBatches = 1024
}

/// The subscribers of `MessageStore.arrivals`, shared by every copy of one store value.
final class ArrivalHub: Sendable {
    private struct State {
        var nextToken: UInt64 = 0
        var subscribers: [UInt64: (chat: ChatID, continuation: AsyncStream<StoredBatch>.Continuation)] = [:]
    }

    private let state = Mutex(State())

    func subscribe(chat: ChatID) -> AsyncStream<StoredBatch> {
        let (stream, continuation) = AsyncStream<StoredBatch>.makeStream(
            bufferingPolicy: .bufferingNewest(StoredBatch.bufferedBatches))
        let token = state.withLock { state in
            defer { state.nextToken += 1 }
            state.subscribers[state.nextToken] = (chat, continuation)
            return state.nextToken
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: token) }
        }
        return stream
    }

    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Called after the commit, with the outcomes of one insert.
    func publish(_ outcomes: [InsertOutcome]) {
        let listeners = state.withLock { $0.subscribers.values.map { $0 } }
        guard !listeners.isEmpty else { return }
        var stored: [ChatID: [StoredMessage]] = [:]
        for case let .inserted(message) in outcomes { stored[message.message.chat, default: []].append(message) }
        for (chat, messages) in stored {
            let ordered = messages.sorted { $0.localNumber < $1.localNumber }
            let batch = StoredBatch(
                chat: chat, ids: ordered.map(\.message.id), highestLocalNumber: ordered.last?.localNumber ?? 0)
            for listener in listeners where listener.chat == chat { listener.continuation.yield(batch) }
        }
    }
}
