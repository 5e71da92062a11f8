import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Synchronization
import Testing

/// What `didSend` reported, in order.
final class OutcomeLog: Sendable {
    private let outcomes = Mutex<[SendHooks.Outcome]>([])
    func append(_ outcome: SendHooks.Outcome) { outcomes.withLock { $0.append(outcome) } }
    var all: [SendHooks.Outcome] { outcomes.withLock { $0 } }
}

/// In-process peers whose first node carries send hooks.
struct HookedPeers {
    let network: InMemoryNetwork
    let peers: [LossyNetworkConvergenceTests.Peer]

    init(
        count: Int, conditions: InMemoryNetwork.Conditions = .init(), seed: UInt64 = 11, hooks: SendHooks = SendHooks()
    ) throws {
        let network = InMemoryNetwork(conditions: conditions, seed: seed)
        self.network = network
        peers = try (0..<count).map { index in
            let identity = try Identity.generate()
            var configuration = NodeConfiguration(identity: identity)
            configuration.tick = .milliseconds(10)
            configuration.syncInterval = .milliseconds(150)
            if index == 0 { configuration.sendHooks = hooks }
            let node = Node(
                configuration: configuration, store: try MessageStore.inMemory(), transport: network.makeTransport())
            return LossyNetworkConvergenceTests.Peer(identity: identity, node: node)
        }
    }
}

struct SendHooksTests {
    @Test func aVetoedMessageIsRefusedWithTheHookReasonAndTakesNoSequenceNumber() async throws {
        // Given a hook that vetoes anything mentioning "secret"
        let log = OutcomeLog()
        let hooks = SendHooks(
            willSend: { $0.content.contains(Array("secret".utf8)) ? .veto(reason: "no secrets here") : .send($0) },
            didSend: { log.append($0) })
        let bed = try HookedPeers(count: 2, hooks: hooks)
        let alice = bed.peers[0].node
        let chat = try await alice.createChat(title: "t", members: [bed.peers[1].identity.publicKey])

        // When alice tries to send a secret, then a plain message
        let error = await #expect(throws: NodeError.self) {
            try await alice.sendText(chat: chat.id, "the secret is 42")
        }
        let sent = try await alice.sendText(chat: chat.id, "hello")

        // Then the veto carries the reason, nothing was stored, and the next message is number 1
        #expect(error == NodeError.vetoed("no secrets here"))
        #expect(error?.description.contains("no secrets here") == true)
        #expect(try alice.store.messages(matching: MessageCriteria(chat: chat.id)).map(\.message.text) == ["hello"])
        #expect(sent.message.sequence == 1)
        #expect(log.all.first == .failed(reason: String(describing: NodeError.vetoed("no secrets here"))))
        #expect(log.all.dropFirst().first == .sent(sent.id))
    }

    @Test func aHookRewritesTagContentAndReferences() async throws {
        // Given a hook that turns "/json X" into a Custom message referencing nothing
        let hooks = SendHooks(willSend: { outgoing in
            let text = String(decoding: outgoing.content, as: UTF8.self)
            guard text.hasPrefix("/json ") else { return .send(outgoing) }
            var changed = outgoing
            changed.tag = .custom
            changed.content = Array(text.dropFirst(6).utf8)
            changed.references = []
            return .send(changed)
        })
        let bed = try HookedPeers(count: 1, hooks: hooks)
        let alice = bed.peers[0].node
        let chat = try await alice.createChat(title: "solo", members: [])
        let first = try await alice.sendText(chat: chat.id, "plain")

        // When a message is sent through it, and another whose rewrite is not valid JSON
        let stored = try await alice.send(
            chat: chat.id, tag: .text, content: Array(#"/json {"k":1}"#.utf8),
            references: [MessageReference(id: first.id, tag: .text)])
        await #expect(throws: CoreError.self) { try await alice.sendText(chat: chat.id, "/json {oops") }

        // Then what is signed and stored is the rewritten message
        #expect(stored.message.tag == .custom)
        #expect(stored.message.text == #"{"k":1}"#)
        #expect(stored.message.references.isEmpty)
        #expect(try alice.store.message(stored.id)?.message.tag == .custom)
        #expect(try alice.store.messages(matching: MessageCriteria(chat: chat.id)).count == 2)
    }

    @Test func reportsSentThenDeliveredToEachOtherMember() async throws {
        // Given alice with a didSend hook in a chat with bob and carol
        let log = OutcomeLog()
        let bed = try await PumpedPeers.make(count: 3) { index, configuration in
            if index == 0 { configuration.sendHooks = SendHooks(didSend: { log.append($0) }) }
        }
        try await bed.running {
            let alice = bed.peers[0].node
            let chat = try await alice.createChat(
                title: "three", members: bed.peers.dropFirst().map(\.identity.publicKey))
            try await bed.settle()

            // When she sends a message
            let sent = try await alice.sendText(chat: chat.id, "hi both")
            try await bed.settle()

            // Then the hook hears it was sent, then delivered, growing to 2 of 2
            #expect(log.all.last == .delivered(sent.id, to: 2, of: 2), "\(log.all)")
            let outcomes = log.all
            #expect(outcomes.first == .sent(sent.id))
            let counts = outcomes.dropFirst().compactMap { outcome -> Int? in
                if case let .delivered(id, to, of) = outcome, id == sent.id, of == 2 { to } else { nil }
            }
            #expect(counts.count == outcomes.count - 1, "only deliveries of this message follow: \(outcomes)")
            #expect(counts == counts.sorted() && Set(counts).count == counts.count, "the count only grows: \(counts)")
        }
    }

    @Test func reportsFailures() async throws {
        let log = OutcomeLog()
        let bed = try HookedPeers(count: 2, hooks: SendHooks(didSend: { log.append($0) }))
        let alice = bed.peers[0].node
        let chat = try await alice.createChat(title: "t", members: [bed.peers[1].identity.publicKey])

        // When sending invalid custom JSON, and to a chat that does not exist
        await #expect(throws: CoreError.self) {
            try await alice.send(chat: chat.id, tag: .custom, content: Array("42".utf8))
        }
        let nowhere = try Digest32(rawRepresentation: [UInt8](repeating: 1, count: 32))
        await #expect(throws: NodeError.self) { try await alice.sendText(chat: nowhere, "hello?") }

        // Then each is reported failed with its reason, and nothing was stored
        let reasons = log.all.compactMap { if case let .failed(reason) = $0 { reason } else { nil } }
        #expect(reasons.count == 2 && log.all.count == 2)
        #expect(reasons.first?.contains("JSON") == true)
        #expect(reasons.last?.contains("no chat") == true)
        #expect(try alice.store.messages(matching: MessageCriteria(chat: chat.id)).isEmpty)
    }
}
