import Foundation
import ParleyCore
import ParleyCrypto
import ParleyStore

/// Fills a store fast with really signed messages: drafts are signed on every core while the previous
/// chunk is inserted, one transaction per chunk, through `MessageStore.insert` like the receive path.
enum BulkMessages {
    static let chunk = 8_192

    /// Inserts the messages `make(0..<count)` describes, in order, each naming its author's previous
    /// one (`MessageDraft.previous`) as a real author's chain does.
    static func fill(
        _ store: MessageStore, count: Int, owner: PeerID,
        _ make: @escaping @Sendable (Int) throws -> (draft: MessageDraft, signer: Identity)
    ) async throws {
        var links = ChainLinks()
        var pending: [Message]? = nil
        for first in stride(from: 0, to: count, by: chunk) {
            let chained = try links.chain(first..<min(first + chunk, count), make)
            async let signed = sign(chained)
            if let pending { try await insert(pending, into: store, owner: owner) }
            pending = try await signed
        }
        if let pending { try await insert(pending, into: store, owner: owner) }
    }

    /// The last message of each author's chain so far: linking needs each id in order (a hash, cheap);
    /// signing, the expensive part, then runs on all cores.
    struct ChainLinks {
        private var last: [ChatAuthor: (sequence: UInt64, id: MessageID)] = [:]

        private struct ChatAuthor: Hashable {
            let chat: ChatID
            let author: PeerID
        }

        mutating func chain(
            _ range: Range<Int>, _ make: (Int) throws -> (draft: MessageDraft, signer: Identity)
        ) throws -> [(message: Message, signer: Identity)] {
            try range.map { index in
                var (draft, signer) = try make(index)
                let key = ChatAuthor(chat: draft.chat, author: draft.author)
                if let previous = last[key], previous.sequence + 1 == draft.sequence { draft.previous = previous.id }
                let message = try draft.chained()
                last[key] = (draft.sequence, message.id)
                return (message, signer)
            }
        }
    }

    private static func insert(_ messages: [Message], into store: MessageStore, owner: PeerID) async throws {
        let outcomes = try await store.insert(messages, receivedAtMillis: BenchContent.epochMillis, ownAuthor: owner)
        let stored = outcomes.count { $0.storedMessage != nil }
        guard stored == messages.count else {
            throw BenchError("only \(stored) of \(messages.count) generated messages were stored")
        }
    }

    /// Signs chained messages as heads on all cores, keeping their order.
    static func sign(_ chained: [(message: Message, signer: Identity)]) async throws -> [Message] {
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let size = max(1, (chained.count + workers - 1) / workers)
        return try await withThrowingTaskGroup(of: (Int, [Message]).self) { group in
            for start in stride(from: 0, to: chained.count, by: size) {
                let part = chained[start..<min(start + size, chained.count)]
                group.addTask { (start, try part.map { try $0.message.signedAsHead(by: $0.signer) }) }
            }
            var parts: [(Int, [Message])] = []
            for try await part in group { parts.append(part) }
            return parts.sorted { $0.0 < $1.0 }.flatMap(\.1)
        }
    }
}
