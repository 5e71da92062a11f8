public import ParleyCrypto

/// One chunk as a holder sends it (PROTOCOL.md §13e): `u8 proof count ‖ proof (32 each) ‖ u32 epoch ‖
/// nonce (24) ‖ XChaCha20-Poly1305(chunk) ‖ tag (16)`, sealed with the chat's current epoch key when it is
/// sent and bound to the chat, the file and the chunk's index. A removed member holds no key of a later
/// epoch, so chunks sealed after its removal are closed to it, whatever a holder does. The nonce is
/// derived from the key and the bound data (`ChatKey.sealDeterministic`): a piece sent again is a piece
/// of the same envelope.
public enum ChunkEnvelope {
    private static let label = Array("parley chunk v1".utf8)
    static let sealOverhead = 4 + ChatKey.nonceByteCount + ChatKey.tagByteCount

    /// The envelope's length for a chunk of `length` bytes in a file of `count` chunks, at most.
    public static func maxBytes(chunkLength length: Int, chunkCount count: Int) -> Int {
        1 + FileTree.depth(ofLeaves: count) * 32 + sealOverhead + length
    }

    public static func seal(
        _ chunk: [UInt8], index: Int, proof: [Digest32], key: EpochKey, chat: ChatID, file: MessageID
    ) -> [UInt8] {
        var out: [UInt8] = [UInt8(proof.count)]
        out.reserveCapacity(1 + proof.count * 32 + sealOverhead + chunk.count)
        for hash in proof { hash.bytes.withUnsafeBytes { out.append(contentsOf: $0) } }
        withUnsafeBytes(of: key.epoch.bigEndian) { out.append(contentsOf: $0) }
        out += key.key.sealDeterministic(
            chunk, associatedData: associatedData(chat: chat, file: file, index: index, epoch: key.epoch))
        return out
    }

    /// Why a chunk was refused: each is counted against the member that sent it.
    public enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// The envelope's layout or length is wrong for its index.
        case malformed
        /// No key held for its epoch opens it.
        case unopenable(epoch: UInt32)
        /// It opened, but its hash tree path does not lead to the manifest's root.
        case hashMismatch

        public var description: String {
            switch self {
            case .malformed: "a chunk envelope is malformed"
            case let .unopenable(epoch): "a chunk sealed for epoch \(epoch) does not open with any key held"
            case .hashMismatch: "a chunk does not match the file's hash tree"
            }
        }
    }

    /// Opens and checks chunk `index` of `manifest`: its length, its seal, then its path to the root.
    /// Returns the chunk's bytes and leaf hash, ready to be written.
    public static func open(
        _ envelope: [UInt8], index: Int, manifest: FileManifest, keys: (UInt32) -> [ChatKey], chat: ChatID,
        file: MessageID
    ) throws(Refusal) -> (chunk: [UInt8], leaf: Digest32) {
        let count = manifest.chunkCount
        guard index >= 0, index < count, let proofCount = envelope.first.map(Int.init),
            proofCount <= FileTree.depth(ofLeaves: count)
        else { throw .malformed }
        let sealedStart = 1 + proofCount * 32
        guard envelope.count == sealedStart + sealOverhead + manifest.chunkLength(index) else { throw .malformed }
        let proof = (0..<proofCount).map { position in
            let start = 1 + position * 32
            return Digest32(bytes: Bytes32(envelope[start..<start + 32]))
        }
        let epoch = envelope[sealedStart..<sealedStart + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let data = associatedData(chat: chat, file: file, index: index, epoch: epoch)
        let sealed = envelope[(sealedStart + 4)...]
        for key in keys(epoch) {
            guard let chunk = try? key.open(sealed, associatedData: data) else { continue }
            let leaf = FileTree.leaf(chunk)
            guard FileTree.verify(leaf: leaf, index: index, count: count, proof: proof, root: manifest.root) else {
                throw .hashMismatch
            }
            return (chunk, leaf)
        }
        throw .unopenable(epoch: epoch)
    }

    private static func associatedData(chat: ChatID, file: MessageID, index: Int, epoch: UInt32) -> [UInt8] {
        var data = label
        data.reserveCapacity(label.count + 2 * Bytes32.count + 8)
        chat.bytes.withUnsafeBytes { data.append(contentsOf: $0) }
        file.bytes.withUnsafeBytes { data.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(index).bigEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: epoch.bigEndian) { data.append(contentsOf: $0) }
        return data
    }
}
