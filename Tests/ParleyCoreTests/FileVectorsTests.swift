import Foundation
import ParleyCore
import ParleyCrypto
import Testing

/// PROTOCOL.md §13e's vectors (Tests/protocol/file-vectors.json): manifests, names, hash trees, chunk
/// envelopes and frames, with refused cases of each. The file is what this code computes: this test
/// fails when it is stale, and `PARLEY_WRITE_FILE_VECTORS=1` rewrites it. Tests/protocol/files.py,
/// written from the document alone, derives the same from the bytes.
struct FileVectorsTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("protocol/file-vectors.json")

    static func bytes(_ hex: String) -> [UInt8] { (try? Hex.decode(hex))! }

    @Test("the committed file vectors are what the Swift code computes")
    func theCommittedVectorsAreWhatTheCodeComputes() throws {
        let computed = try FileVectors.make()
        if ProcessInfo.processInfo.environment["PARLEY_WRITE_FILE_VECTORS"] == "1" {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try (encoder.encode(computed) + Data("\n".utf8)).write(to: Self.file)
        }
        let committed = try JSONDecoder().decode(FileVectors.self, from: Data(contentsOf: Self.file))
        #expect(committed == computed, "Tests/protocol/file-vectors.json is stale")
    }

    @Test("every manifest survives its encoding, and every refused one is refused")
    func manifestsDecodeOrAreRefused() throws {
        let vectors = try FileVectors.make()
        for manifest in vectors.manifests {
            let decoded = try FileManifest(decoding: Self.bytes(manifest.encoded))
            #expect(decoded.encoded == Self.bytes(manifest.encoded) && decoded.chunkCount == manifest.chunkCount)
        }
        #expect(try FileManifest(decoding: Self.bytes(vectors.manifests[3].encoded)).chunkCount == 1 << 24)
        for refused in vectors.refused {
            #expect(throws: CoreError.self, "\(refused.label)") {
                try FileManifest(decoding: Self.bytes(refused.encoded))
            }
        }
    }

    @Test("a sanitised name is sanitised already, and a refused name is one sanitising changes")
    func sanitisingIsIdempotent() throws {
        for name in try FileVectors.make().names {
            let raw = String(decoding: Self.bytes(name.raw), as: UTF8.self)
            let once = FileName.sanitized(raw)
            #expect(FileName.sanitized(once) == once && FileName.isSanitized(once), "\(name.label)")
            #expect(once.utf8.count <= FileName.maxBytes && !once.isEmpty)
            #expect(name.accepted == (Array(once.unicodeScalars) == Array(raw.unicodeScalars)), "\(name.label)")
        }
    }

    @Test("every proof leads its leaf to the root, and no bad proof does")
    func proofsVerify() throws {
        let vectors = try FileVectors.make()
        for tree in vectors.trees {
            let root = try Digest32(rawRepresentation: Self.bytes(tree.root))
            for (index, proof) in tree.proofs.enumerated() {
                let leaf = try Digest32(rawRepresentation: Self.bytes(tree.leaves[index]))
                let hashes = try proof.map { try Digest32(rawRepresentation: Self.bytes($0)) }
                #expect(FileTree.verify(leaf: leaf, index: index, count: tree.leaves.count, proof: hashes, root: root))
                #expect(hashes.count <= FileTree.depth(ofLeaves: tree.leaves.count))
            }
        }
        for bad in vectors.badProofs {
            let tree = try #require(vectors.trees.first { $0.leaves.count == bad.count })
            #expect(
                !FileTree.verify(
                    leaf: try Digest32(rawRepresentation: Self.bytes(bad.leaf)), index: bad.index, count: bad.count,
                    proof: try bad.proof.map { try Digest32(rawRepresentation: Self.bytes($0)) },
                    root: try Digest32(rawRepresentation: Self.bytes(tree.root))),
                "\(bad.label)")
        }
    }

    static func open(_ envelope: [UInt8], _ manifest: FileVectors.Manifest, index: Int) throws(ChunkEnvelope.Refusal)
        -> [UInt8]
    {
        let key = FileVectors.key
        return try ChunkEnvelope.open(
            envelope, index: index, manifest: (try? FileManifest(decoding: bytes(manifest.encoded)))!,
            keys: { $0 == key.epoch ? [key.key] : [] }, chat: FileVectors.chatID,
            file: (try? MessageID(rawRepresentation: bytes(manifest.file)))!
        ).chunk
    }

    @Test("each envelope opens to its chunk, and each altered one is refused for the documented reason")
    func envelopesOpenOrAreRefused() throws {
        let vectors = try FileVectors.make()
        let samples = try FileVectors.samples()
        for envelope in vectors.envelopes {
            let manifest = try #require(vectors.manifests.first { $0.label == envelope.manifest })
            let sample = try #require(samples.first { $0.label == envelope.manifest })
            let sealed = try FileVectors.seal(sample, envelope.index)
            #expect(try sealed == FileVectors.seal(sample, envelope.index), "the seal is deterministic")
            let chunk = try Self.open(sealed, manifest, index: envelope.index)
            #expect(chunk == FileVectors.chunks(of: try #require(sample.content).bytes)[envelope.index])
            #expect(sealed.count <= ChunkEnvelope.maxBytes(chunkLength: chunk.count, chunkCount: manifest.chunkCount))
        }
        for refused in vectors.refusedEnvelopes {
            let manifest = try #require(vectors.manifests.first { $0.label == refused.manifest })
            do {
                _ = try Self.open(Self.bytes(refused.envelope), manifest, index: refused.index)
                Issue.record("\(refused.label): opened")
            } catch {
                let name =
                    switch error {
                    case .malformed: "malformed"
                    case .unopenable: "unopenable"
                    case .hashMismatch: "hashMismatch"
                    }
                #expect(name == refused.refusal, "\(refused.label)")
            }
        }
    }

    @Test("the frames decode to what encodes them, and every refused frame is malformed")
    func framesRoundTrip() throws {
        let vectors = try FileVectors.make()
        for vector in vectors.frames {
            let frames = try Frame.decodeAll(Self.bytes(vector.encoded))
            #expect(frames.count == 1 && Frame.encode(frames) == Self.bytes(vector.encoded), "\(vector.label)")
        }
        for vector in vectors.refusedFrames {
            #expect(throws: CoreError.self, "\(vector.label)") { try Frame.decodeAll(Self.bytes(vector.encoded)) }
        }
    }

    @Test("a fetch assembles a chunk's pieces, in any order, into its envelope")
    func aFetchAssemblesPieces() throws {
        let sample = try #require(try FileVectors.samples().first { $0.label == "plain" })
        let envelope = try FileVectors.seal(sample, 0)
        let peer = Fixtures.identity(5).publicKey
        var fetch = ChunkFetch(held: ChunkSet(count: 2), sources: [peer])
        let wants = fetch.wants(now: .zero)
        #expect(wants.map(\.wants.count) == [2] && wants[0].wants.allSatisfy { $0.pieces == .max })
        let count = ChunkPieces.count(envelopeBytes: envelope.count)
        var assembled: [UInt8]?
        for piece in (0..<count).reversed() {
            guard
                case let .filePiece(filePiece) = FileVectors.pieceFrame(
                    envelope, file: sample.file, chunk: 0, piece: piece)
            else { continue }
            #expect(assembled == nil)
            assembled = fetch.receive(filePiece, from: peer, now: .milliseconds(10))
        }
        #expect(assembled == envelope)
        fetch.accepted(0, from: peer)
        #expect(fetch.held.contains(0) && !fetch.isComplete)
    }
}
