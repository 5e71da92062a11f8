import Foundation
import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Synchronization
import Testing

/// Files between in-memory nodes (PROTOCOL.md §13e): sealed chunks fetched from every member holding a
/// file, checked before they are written, resumed from what is on disk, within the node's limits.
struct FileTransferTests {
    /// A bed whose nodes keep files in folders of their own under a fresh temporary folder.
    static func bed(
        count: Int, conditions: InMemoryNetwork.Conditions = .init(), seed: UInt64 = 1,
        configure: @escaping (Int, inout NodeConfiguration.Files) -> Void = { _, _ in }
    ) async throws -> (PumpedPeers, String) {
        let root = NSTemporaryDirectory() + "parley-files-" + UUID().uuidString
        let bed = try await PumpedPeers.make(count: count, conditions: conditions, seed: seed) { index, configuration in
            let folder = "\(root)/\(index)"
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            configuration.files.directory = folder
            configure(index, &configuration.files)
        }
        return (bed, root)
    }

    /// `size` deterministic bytes that are no picture, written to a file of their own.
    static func sample(_ size: Int, in root: String, seed: UInt8 = 7) throws -> (path: String, bytes: [UInt8]) {
        var state = UInt32(seed) &+ 1
        let bytes = (0..<size).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        let path = "\(root)/sample-\(seed)-\(size).bin"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, bytes)
    }

    static func held(_ node: Node, _ id: MessageID) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: try node.heldFilePath(id))))
    }

    /// Moves time on in steps until `done` holds (or `limit` passes).
    static func advance(_ bed: PumpedPeers, upTo limit: Duration = .seconds(60), until done: () throws -> Bool)
        async throws
    {
        var waited = Duration.zero
        while try !done(), waited < limit {
            try await bed.advance(by: .milliseconds(50))
            waited += .milliseconds(50)
        }
    }

    @Test(arguments: [3, 11] as [UInt64])
    func aFileCrossesALossyNetworkIdenticalAndAThirdMemberFetchesItFromBoth(seed: UInt64) async throws {
        // Given three members on a network that drops 10% and reorders, and a 700 KiB file of alice's
        let (bed, root) = try await Self.bed(count: 3, conditions: .init(lossRate: 0.10, reorder: true), seed: seed)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (alice, bob, carol) = (bed.peers[0].node, bed.peers[1].node, bed.peers[2].node)
        let (path, bytes) = try Self.sample(700 * 1_024 + 333, in: root)
        try await bed.running {
            let chat = try await alice.createChat(title: "Files", members: [bob.me, carol.me]).id
            try await bed.advance(by: .seconds(5))
            let sent = try await alice.sendFile(chat: chat, path: path, caption: "the data")
            try await bed.advance(by: .seconds(3))

            // When bob fetches it (nothing but pictures is fetched unasked)
            #expect(try bob.file(sent.id).holding == nil)
            try await bob.fetchFile(sent.id)
            try await Self.advance(bed) { try bob.file(sent.id).isHeld }

            // Then bob holds the very bytes, and carol, fetching next, is served by alice and bob
            #expect(try Self.held(bob, sent.id) == bytes)
            #expect(try bob.file(sent.id).manifest.caption == "the data")
            try await carol.fetchFile(sent.id)
            try await bed.advance(by: .milliseconds(100))
            #expect(try carol.file(sent.id).sources == 2)
            try await Self.advance(bed) { try carol.file(sent.id).isHeld }
            #expect(try Self.held(carol, sent.id) == bytes)
            let servedByBob = bob.transfers.state.withLock(\.chunksServed)
            #expect(servedByBob > 0)
        }
    }

    @Test func aHolderSendingBadChunksIsRefusedCountedAndAskedNothingMore() async throws {
        // Given mallory, a member holding the file whose bytes on disk were changed, yet serving them
        // with the true hash tree (as a hostile node would)
        let (bed, root) = try await Self.bed(count: 3)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (alice, mallory, bob) = (bed.peers[0].node, bed.peers[1].node, bed.peers[2].node)
        let (path, bytes) = try Self.sample(400 * 1_024, in: root)
        try await bed.running {
            let chat = try await alice.createChat(title: "Files", members: [mallory.me, bob.me]).id
            try await bed.advance(by: .seconds(5))
            let sent = try await alice.sendFile(chat: chat, path: path)
            try await bed.advance(by: .seconds(3))
            try await mallory.fetchFile(sent.id)
            try await Self.advance(bed) { try mallory.file(sent.id).isHeld }
            let tree = try #require(alice.transfers.tree(of: sent.id))
            try Data(repeating: 0x5A, count: bytes.count).write(
                to: URL(fileURLWithPath: try mallory.heldFilePath(sent.id)))
            mallory.transfers.keep(tree, of: sent.id)

            // When bob fetches it from both
            try await bob.fetchFile(sent.id)
            try await Self.advance(bed) { try bob.file(sent.id).isHeld }

            // Then bob's copy is alice's bytes, mallory's chunks were refused and counted, and she was
            // asked nothing more for the file
            #expect(try Self.held(bob, sent.id) == bytes)
            let status = try await bob.status()
            #expect((status.rejections["fileChunkRefused"] ?? 0) >= 1)
            #expect(bob.transfers.state.withLock { $0.refusedChunks[mallory.me] ?? 0 } >= 1)
        }
    }

    @Test func aFetchStoppedHalfWayGoesOnWithoutFetchingWhatIsOnDisk() async throws {
        // Given bob, with half of a file's chunks on disk and checked (a fetch a kill stopped)
        let (bed, root) = try await Self.bed(count: 2)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (alice, bob) = (bed.peers[0].node, bed.peers[1].node)
        let (path, bytes) = try Self.sample(10 * FileManifest.chunkBytes + 5, in: root)
        try await bed.running {
            let chat = try await alice.createChat(title: "Files", members: [bob.me]).id
            try await bed.advance(by: .seconds(5))
            let sent = try await alice.sendFile(chat: chat, path: path)
            try await bed.advance(by: .seconds(3))
            let folder = try #require(bob.configuration.files.directory)
            let part = try FileDescriptor(path: "\(folder)/\(sent.id.hex).part", writable: true)
            let have = try FileDescriptor(path: "\(folder)/\(sent.id.hex).have", writable: true)
            for index in stride(from: 0, to: 11, by: 2) {
                let start = index * FileManifest.chunkBytes
                try part.write(
                    Array(bytes[start..<min(bytes.count, start + FileManifest.chunkBytes)]), at: Int64(start))
                try have.write([1], at: Int64(index))
            }

            // When the fetch goes on
            try await bob.fetchFile(sent.id)
            try await Self.advance(bed) { try bob.file(sent.id).isHeld }

            // Then only the five missing chunks were fetched, and the file is whole
            #expect(bob.transfers.state.withLock(\.chunksFetched) == 5)
            #expect(try Self.held(bob, sent.id) == bytes)
        }
    }

    @Test func aRemovedMemberIsServedNoChunk() async throws {
        // Given carol, removed from the chat after alice sent a file
        let (bed, root) = try await Self.bed(count: 3)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (alice, bob, carol) = (bed.peers[0].node, bed.peers[1].node, bed.peers[2].node)
        let (path, _) = try Self.sample(200 * 1_024, in: root)
        try await bed.running {
            let chat = try await alice.createChat(title: "Files", members: [bob.me, carol.me]).id
            try await bed.advance(by: .seconds(5))
            let sent = try await alice.sendFile(chat: chat, path: path)
            try await bed.advance(by: .seconds(3))
            _ = try await alice.removeMembers(chat: chat, [carol.me])
            try await bed.advance(by: .seconds(5))

            // When carol's node asks alice for chunks anyway
            await #expect(throws: NodeError.self) { try await carol.fetchFile(sent.id) }
            await carol.transmit([.fileWant(file: sent.id, wants: [ChunkWant(chunk: 0, pieces: .max)])], to: alice.me)
            try await bed.advance(by: .seconds(1))

            // Then alice refused it and sent no piece
            #expect((try await alice.status().rejections["fileWantRefused"] ?? 0) >= 1)
            #expect(alice.transfers.state.withLock(\.chunksServed) == 0)
        }
    }

    @Test func limitsAreClearErrorsAndTheQuotaEvictsTheOldestFetchedFile() async throws {
        // Given bob, whose node keeps at most 1.5 MiB of files, and files of 1 MiB from alice, with a
        // cap of 1 MiB per file
        let (bed, root) = try await Self.bed(count: 2) { index, files in
            files.maxFileBytes = 1 << 20
            if index == 1 { files.quotaBytes = 3 << 19 }
        }
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (alice, bob) = (bed.peers[0].node, bed.peers[1].node)
        let first = try Self.sample(1 << 20, in: root, seed: 1)
        let second = try Self.sample(1 << 20, in: root, seed: 2)
        let tooBig = try Self.sample((1 << 20) + 1, in: root, seed: 3)
        try await bed.running {
            let chat = try await alice.createChat(title: "Files", members: [bob.me]).id
            try await bed.advance(by: .seconds(5))

            // When alice sends one over the cap, then two, and bob fetches both in turn
            await #expect { try await alice.sendFile(chat: chat, path: tooBig.path) } throws: { error in
                (error as? NodeError)?.kind == .fileTooLarge
            }
            let one = try await alice.sendFile(chat: chat, path: first.path).id
            let two = try await alice.sendFile(chat: chat, path: second.path).id
            try await bed.advance(by: .seconds(3))
            try await bob.fetchFile(one)
            try await Self.advance(bed) { try bob.file(one).isHeld }
            try await bob.fetchFile(two)
            try await Self.advance(bed) { try bob.file(two).isHeld }

            // Then the first was evicted for the second, and asking for its bytes says so
            #expect(try bob.file(one).holding == nil)
            #expect(throws: NodeError.self) { try bob.heldFilePath(one) }
            #expect(try Self.held(bob, two) == second.bytes)
        }
    }

    @Test func deletingAFileForEveryoneRemovesItsBytesFromEveryNode() async throws {
        let (bed, root) = try await Self.bed(count: 2)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (alice, bob) = (bed.peers[0].node, bed.peers[1].node)
        let (path, _) = try Self.sample(150 * 1_024, in: root)
        try await bed.running {
            let chat = try await alice.createChat(title: "Files", members: [bob.me]).id
            try await bed.advance(by: .seconds(5))
            let sent = try await alice.sendFile(chat: chat, path: path)
            try await bed.advance(by: .seconds(3))
            try await bob.fetchFile(sent.id)
            try await Self.advance(bed) { try bob.file(sent.id).isHeld }
            let bobsCopy = try bob.heldFilePath(sent.id)

            // When alice deletes it for everyone
            _ = try await alice.deleteForEveryone(chat: chat, message: sent.id)
            try await bed.advance(by: .seconds(3))

            // Then neither node keeps its bytes or lists it
            #expect(!FileManager.default.fileExists(atPath: bobsCopy))
            #expect(try bob.files(chat: chat).isEmpty)
            #expect(try alice.files(chat: chat).isEmpty)
        }
    }
}
