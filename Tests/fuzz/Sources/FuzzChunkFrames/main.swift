import FuzzSupport
import ParleyCore
import ParleyCrypto

// Fixed before the fuzzer starts: a chat key, and two files whose bytes, trees and manifests are known:
// one of a single 700-byte chunk, one of three chunks (the last 300 bytes, its leaf carried up).
let key = EpochKey(epoch: 3, key: try! ChatKey(rawRepresentation: (0..<32).map { UInt8(0x40 + $0) }))
let chat = try! ChatID(rawRepresentation: [UInt8](repeating: 0xa0, count: 32))
let holder = try! Identity(seed: [UInt8](repeating: 5, count: 32)).publicKey
let other = try! Identity(seed: [UInt8](repeating: 6, count: 32)).publicKey

struct Sample {
    let file: MessageID
    let chunks: [[UInt8]]
    let tree: FileTree
    let manifest: FileManifest

    init(_ label: UInt8, size: Int) {
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(label)) }
        chunks = stride(from: 0, to: max(size, 1), by: FileManifest.chunkBytes).map {
            Array(bytes[min($0, size)..<min(size, $0 + FileManifest.chunkBytes)])
        }
        tree = FileTree(leaves: chunks.map(FileTree.leaf))
        file = try! MessageID(rawRepresentation: [UInt8](repeating: label, count: 32))
        manifest = try! FileManifest(
            name: "f\(label).bin", size: UInt64(size), type: "application/octet-stream", root: tree.root)
    }

    func seal(_ index: Int) -> [UInt8] {
        ChunkEnvelope.seal(chunks[index], index: index, proof: tree.proof(for: index), key: key, chat: chat, file: file)
    }

    /// Opens `envelope` as chunk `index`: only the true chunk may come out.
    func check(_ envelope: [UInt8], index: Int) -> Bool {
        let keys: (UInt32) -> [ChatKey] = { $0 == key.epoch ? [key.key] : [] }
        guard
            let (chunk, leaf) = try? ChunkEnvelope.open(
                envelope, index: index, manifest: manifest, keys: keys, chat: chat, file: file)
        else { return false }
        if index >= chunks.count || chunk != chunks[index] || leaf != FileTree.leaf(chunk) {
            Fuzzer.fail("an envelope opened to bytes that are not chunk \(index)")
        }
        return true
    }
}

let small = Sample(1, size: 700)
let three = Sample(2, size: 2 * FileManifest.chunkBytes + 300)
let seven = FileTree(leaves: (0..<7).map { FileTree.leaf([UInt8($0)]) })

// The input as a chunk envelope (`ChunkEnvelope.open`, at every index of both files); as a leaf index
// and proof for `FileTree.verify` on a tree of 7 leaves (one that passes must be the leaf's own
// proof); and as frames (`Frame.decodeAll`), whose pieces and lacks drive a `ChunkFetch` of the
// three-chunk file, with assembled envelopes checked and accepted or refused as a node does.
Fuzzer.main(seeds: seeds) { bytes in
    _ = small.check(bytes, index: 0)
    for index in -1...3 { _ = three.check(bytes, index: index) }
    verifyProof(bytes)
    guard let frames = try? Frame.decodeAll(bytes) else { return }
    var fetch = ChunkFetch(held: ChunkSet(count: three.chunks.count), sources: [holder, other])
    var now = Duration.zero
    checkWants(fetch.wants(now: now), fetch)
    for (position, frame) in frames.enumerated() {
        let peer = position % 3 == 2 ? other : holder
        now += position % 4 == 3 ? .seconds(5) : .milliseconds(3)
        switch frame {
        case let .filePiece(piece):
            guard let envelope = fetch.receive(piece, from: peer, now: now) else { break }
            let index = Int(piece.chunk)
            if three.check(envelope, index: index) {
                fetch.accepted(index, from: peer)
            } else {
                _ = fetch.refused(index, from: peer)
            }
        case .fileLack: fetch.lacks(peer)
        case .fileWant: fetch.addSource(peer)
        default: break
        }
        checkWants(fetch.wants(now: now), fetch)
    }
    if fetch.held.held > fetch.held.count || fetch.inFlight > fetch.held.count {
        Fuzzer.fail("a fetch counts \(fetch.held.held) held and \(fetch.inFlight) in flight of \(fetch.held.count)")
    }
}

/// Byte 0 is the leaf's index, byte 1 the leaf count; every 32 bytes after them are one proof hash.
func verifyProof(_ bytes: [UInt8]) {
    guard bytes.count >= 2 else { return }
    let index = Int(bytes[0]), count = Int(bytes[1])
    let proof = stride(from: 2, to: bytes.count - 31, by: 32).prefix(8).map {
        Digest32(bytes: Bytes32(bytes[$0..<$0 + 32]))
    }
    let leaf = FileTree.leaf([UInt8(index % 7)])
    guard FileTree.verify(leaf: leaf, index: index, count: count, proof: proof, root: seven.root), count == 7 else {
        return
    }
    if index >= 7 || proof != seven.proof(for: index) { Fuzzer.fail("a forged proof verified for leaf \(index)") }
}

/// A want names a chunk that is not held, and at least one piece of it.
func checkWants(_ wants: [(peer: PeerID, wants: [ChunkWant])], _ fetch: ChunkFetch) {
    for (_, batch) in wants {
        if batch.isEmpty || batch.count > ChunkWant.maxPerFrame { Fuzzer.fail("a want frame of \(batch.count) chunks") }
        for want in batch where want.pieces == 0 || fetch.held.contains(Int(want.chunk)) {
            Fuzzer.fail("a want for chunk \(want.chunk), mask \(want.pieces), of a fetch holding it or naming no piece")
        }
    }
}

func pieces(_ envelope: [UInt8], file: MessageID, chunk: UInt32, first count: Int) -> [Frame] {
    let total = ChunkPieces.count(envelopeBytes: envelope.count)
    return (0..<min(count, total)).map { piece in
        .filePiece(
            FilePiece(
                file: file, chunk: chunk, piece: UInt8(piece), pieces: UInt8(total),
                bytes: Array(ChunkPieces.piece(piece, of: envelope))))
    }
}

/// Sealed envelopes of both files, a proof, and piece frames: a last chunk whole, a first chunk's
/// first pieces, and a lack and a want.
func seeds() throws -> [[UInt8]] {
    let proof = [UInt8(6), 7] + seven.proof(for: 6).flatMap(\.bytes.array)
    return [
        small.seal(0), three.seal(2), proof,
        Frame.encode(pieces(three.seal(2), file: three.file, chunk: 2, first: 1)),
        Frame.encode(pieces(three.seal(0), file: three.file, chunk: 0, first: 3)),
        Frame.encode(
            pieces(three.seal(1), file: three.file, chunk: 1, first: 2) + [
                .fileLack(file: three.file), .fileWant(file: three.file, wants: [ChunkWant(chunk: 0, pieces: 1)]),
            ]),
    ]
}
