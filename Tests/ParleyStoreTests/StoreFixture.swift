import Foundation
import ParleyCore
import ParleyCrypto
@testable import ParleyStore

/// Three people, one chat between them, and an empty in-memory store that has joined it.
struct StoreFixture {
    let alice: Identity
    let bob: Identity
    let carol: Identity
    /// Created by Alice; members Alice, Bob and Carol.
    let invite: ChatInvite
    let store: MessageStore

    var chat: ChatID { invite.id }

    static func make(store: MessageStore? = nil) async throws -> StoreFixture {
        let alice = try Identity.generate()
        let bob = try Identity.generate()
        let carol = try Identity.generate()
        let invite = try ChatInvite.create(
            by: alice, title: "t", members: [bob.publicKey, carol.publicKey], createdAtMillis: 0)
        let store = try store ?? MessageStore.inMemory()
        _ = try await store.saveChat(invite, joinedAtMillis: 0)
        return StoreFixture(alice: alice, bob: bob, carol: carol, invite: invite, store: store)
    }

    /// A signed message in the fixture's chat (or `chat`).
    func message(
        by author: Identity, seq: UInt64, lamport: UInt64? = nil, tag: Tag = .text, text: String = "hi",
        content: [UInt8]? = nil,
        references: [MessageReference] = [], in chat: ChatID? = nil
    ) throws -> Message {
        try MessageDraft(
            chat: chat ?? invite.id, author: author.publicKey, sequence: seq, lamport: lamport ?? seq,
            timestampMillis: 0, tag: tag, content: content ?? Array(text.utf8), references: references
        ).signed(by: author)
    }

    /// Inserts as Alice's node would, at time 1000.
    @discardableResult
    func insert(_ messages: Message...) async throws -> [InsertOutcome] {
        try await store.insert(messages, receivedAtMillis: 1000, ownAuthor: alice.publicKey)
    }

    /// Inserts as Alice's send path does: her own messages as sent.
    @discardableResult
    func insertSent(_ messages: Message...) async throws -> [InsertOutcome] {
        try await store.insert(messages, receivedAtMillis: 1000, ownAuthor: alice.publicKey, ownSent: true)
    }

    /// Inserts and returns what was stored, failing the test if anything was not.
    func stored(_ messages: Message...) async throws -> [StoredMessage] {
        let outcomes = try await store.insert(messages, receivedAtMillis: 1000, ownAuthor: alice.publicKey)
        return try outcomes.map { outcome in
            guard let stored = outcome.storedMessage else { throw FixtureError("expected an insert, got \(outcome)") }
            return stored
        }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A fresh directory under the system temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("parley-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}
