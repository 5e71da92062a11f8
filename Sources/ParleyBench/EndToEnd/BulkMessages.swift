import Foundation
import ParleyCore
import ParleyCrypto
import ParleyStore

/// Fills a store fast with really signed messages: drafts are signed on every core while the previous
/// chunk is inserted, one transaction per chunk, through `MessageStore.insert` like the receive path.
enum BulkMessages {
    static let chunk = 8_192

    /// Inserts the messages `make(0..<count)` describes, in order.
    static func fill(
        _ store: MessageStore, count: Int, owner: PeerID,
        _ make: @escaping @Sendable (Int) throws -> (draft: MessageDraft, signer: Identity)
    ) async throws {
        var pending: [Message]? = nil
        for first in stride(from: 0, to: count, by: chunk) {
            async let signed = sign(first..<min(first + chunk, count), make)
            if let pending { try await insert(pending, into: store, owner: owner) }
            pending = try await signed
        }
        if let pending { try await insert(pending, into: store, owner: owner) }
    }

    private static func insert(_ messages: [Message], into store: MessageStore, owner: PeerID) async throws {
        let outcomes = try await store.insert(messages, receivedAtMillis: BenchContent.epochMillis, ownAuthor: owner)
        let stored = outcomes.count { $0.storedMessage != nil }
        guard stored == messages.count else { throw BenchError("only \(stored) of \(messages.count) generated messages were stored") }
    }

    /// Signs a range of drafts on all cores, keeping their order.
    static func sign(
        _ range: Range<Int>, _ make: @escaping @Sendable (Int) throws -> (draft: MessageDraft, signer: Identity)
    ) async throws -> [Message] {
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let size = (range.count + workers - 1) / workers
        return try await withThrowingTaskGroup(of: (Int, [Message]).self) { group in
            for start in stride(from: range.lowerBound, to: range.upperBound, by: size) {
                let part = start..<min(start + size, range.upperBound)
                group.addTask {
                    (start, try part.map { index in
                        let (draft, signer) = try make(index)
                        return try draft.signed(by: signer)
                    })
                }
            }
            var parts: [(Int, [Message])] = []
            for try await part in group { parts.append(part) }
            return parts.sorted { $0.0 < $1.0 }.flatMap(\.1)
        }
    }
}
