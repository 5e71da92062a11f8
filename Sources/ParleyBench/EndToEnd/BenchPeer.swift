import Foundation
import Logging
import ParleyCore
import ParleyCrypto
import ParleyNode
import ParleyStore
import ParleyTransport

/// One in-process peer: a real `Node` over a real `UDPTransport` on 127.0.0.1, with a file store.
struct BenchPeer: Sendable {
    let identity: Identity
    let node: Node
    /// The node's store, as the bench opened it: progress probes read it directly.
    let store: MessageStore

    var id: PeerID { identity.publicKey }

    static func make(identity: Identity? = nil, storePath: String) async throws -> BenchPeer {
        let identity = try identity ?? Identity.generate()
        let store = try MessageStore.open(path: storePath)
        let transport = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
        var logger = Logger(label: "parley-bench.node")
        // Stopping nodes mid-burst makes them warn about batches they drop; only errors matter here.
        logger.logLevel = .error
        var configuration = NodeConfiguration(identity: identity)
        // Files (the file phase): a folder beside the store, and room for the full run's 1 GiB.
        configuration.files.directory = storePath + "-files"
        configuration.files.maxFileBytes = 2 << 30
        configuration.files.quotaBytes = 8 << 30
        try FileManager.default.createDirectory(atPath: storePath + "-files", withIntermediateDirectories: true)
        let node = Node(configuration: configuration, store: store, transport: transport, logger: logger)
        return BenchPeer(identity: identity, node: node, store: store)
    }

    /// `count` fresh peers, each a contact (with address) of the others.
    static func group(_ count: Int, directory: String, name: String) async throws -> [BenchPeer] {
        var peers: [BenchPeer] = []
        for index in 0..<count {
            peers.append(try await make(storePath: "\(directory)/\(name)-\(index).sqlite"))
        }
        try await introduce(peers)
        return peers
    }

    static func introduce(_ peers: [BenchPeer]) async throws {
        for peer in peers {
            for other in peers where other.id != peer.id {
                try await peer.node.addContact(
                    Contact(peer: other.id, name: other.id.shortHex, address: other.node.localAddress))
            }
        }
    }

    /// Runs the peers' nodes while `body` works, then stops them and closes their sockets.
    static func running<T: Sendable>(_ peers: [BenchPeer], _ body: () async throws -> T) async throws -> T {
        let result: Result<T, any Error> = await withThrowingTaskGroup(of: Void.self) { group in
            for peer in peers { group.addTask { try await peer.node.run() } }
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            group.cancelAll()
            return result
        }
        for peer in peers { await peer.node.shutdown() }
        return try result.get()
    }

    /// The creator makes a chat with the others and waits until every member has joined.
    static func chat(_ peers: [BenchPeer], title: String) async throws -> ChatID {
        let invite = try await peers[0].node.createChat(title: title, members: peers.dropFirst().map(\.id))
        for peer in peers.dropFirst() {
            let joined = try await Measure.waitUntil(timeout: .seconds(20)) { try peer.node.chat(invite.id) != nil }
            guard joined else { throw BenchError("a peer never joined the chat '\(title)'") }
        }
        return invite.id
    }

    /// How many of `author`'s messages this peer holds without a gap.
    func contiguous(_ chat: ChatID, from author: PeerID) throws -> UInt64 {
        try store.contiguousSequences(chat: chat)[author] ?? 0
    }
}

/// Message content used everywhere: with the header and signature a message is about 200 bytes on the wire.
enum BenchContent {
    static let text = String(repeating: "x", count: 64)
    static let bytes = Array(text.utf8)
    /// The fixed wall clock of generated chats and messages.
    static let epochMillis: Int64 = 1_700_000_000_000
}
