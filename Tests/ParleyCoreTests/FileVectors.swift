import ParleyCore
import ParleyCrypto

/// PROTOCOL.md §13e's vectors as the Swift code computes them (Tests/protocol/file-vectors.json):
/// manifests and refused ones, file names before and after sanitising, hash trees with every proof,
/// sealed chunk envelopes and refused ones, and the three frames. Everything is hex but the labels,
/// so no raw control or bidi character lands in the file.
struct FileVectors: Codable, Equatable {
    /// A file's bytes, by rule rather than listed: byte i is (multiplier × i + offset) mod modulus.
    struct Content: Codable, Equatable {
        let length: Int
        let multiplier: Int
        let offset: Int
        let modulus: Int
        /// BLAKE2b-256 of the whole content.
        let hash: String

        var bytes: [UInt8] { (0..<length).map { UInt8((multiplier * $0 + offset) % modulus) } }
    }

    struct Picture: Codable, Equatable {
        let width: UInt32
        let height: UInt32
        let thumbnail: String
    }

    struct Manifest: Codable, Equatable {
        let label: String
        /// The message id the manifest travels as (here BLAKE2b-256 of the label), bound into its chunks.
        let file: String
        let name: String
        let size: UInt64
        let type: String
        let root: String
        let caption: String
        let picture: Picture?
        /// Absent when the file is too large to list (its root is then arbitrary).
        let content: Content?
        let chunkCount: Int
        let lastChunkBytes: Int
        let encoded: String
    }

    struct Refused: Codable, Equatable {
        let label: String
        /// The rule it breaks: version, flags, truncated, utf8, name, size, type, caption, picture,
        /// thumbnail, trailing.
        let rule: String
        let encoded: String
        let error: String
    }

    struct Name: Codable, Equatable {
        let label: String
        let raw: String
        let sanitized: String
        /// Whether a manifest may carry `raw` as it is.
        let accepted: Bool
    }

    struct Tree: Codable, Equatable {
        let chunks: [String]
        let leaves: [String]
        let root: String
        let proofs: [[String]]
    }

    struct BadProof: Codable, Equatable {
        let label: String
        /// Which tree of `trees` (by leaf count) and which leaf.
        let count: Int
        let index: Int
        let leaf: String
        let proof: [String]
    }

    struct Envelope: Codable, Equatable {
        let manifest: String
        let index: Int
        let epoch: UInt32
        let proof: [String]
        let associatedData: String
        let nonce: String
        let length: Int
        /// BLAKE2b-256 of the envelope; `envelope` lists it whole when it is at most 4,096 bytes, else
        /// `head` holds its first 128.
        let hash: String
        let envelope: String?
        let head: String
        let pieces: Int
        let lastPieceBytes: Int
    }

    struct RefusedEnvelope: Codable, Equatable {
        let label: String
        let manifest: String
        let index: Int
        let envelope: String
        /// malformed, unopenable or hashMismatch (PROTOCOL.md §13e).
        let refusal: String
    }

    struct FrameVector: Codable, Equatable {
        let label: String
        let encoded: String
    }

    let chatKey: String
    let epoch: UInt32
    let chat: String
    let chunkBytes: Int
    let pieceBytes: Int
    let manifests: [Manifest]
    let refused: [Refused]
    let names: [Name]
    let trees: [Tree]
    let badProofs: [BadProof]
    let envelopes: [Envelope]
    let refusedEnvelopes: [RefusedEnvelope]
    let frames: [FrameVector]
    let refusedFrames: [FrameVector]
}

extension FileVectors {
    static let keyBytes = (0..<32).map { UInt8(0x40 + $0) }
    static let epochNumber: UInt32 = 3
    static let chatID = (try? ChatID(rawRepresentation: (0..<32).map { UInt8(0xa0 + $0) }))!

    static func fileID(_ label: String) -> MessageID {
        (try? MessageID(rawRepresentation: BLAKE2b.hash256(Array(label.utf8))))!
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String { Hex.encode(bytes) }
    static func hex(_ digest: Digest32) -> String { digest.hex }

    static func content(_ length: Int, _ multiplier: Int, _ offset: Int, _ modulus: Int) -> Content {
        let bytes = (0..<length).map { UInt8((multiplier * $0 + offset) % modulus) }
        return Content(
            length: length, multiplier: multiplier, offset: offset, modulus: modulus, hash: hex(BLAKE2b.hash256(bytes)))
    }

    static func chunks(of bytes: [UInt8]) -> [[UInt8]] {
        let count = FileManifest.chunkCount(size: UInt64(bytes.count))
        return (0..<count).map { index in
            Array(
                bytes[
                    min(
                        bytes.count, index * FileManifest.chunkBytes)..<min(
                            bytes.count, (index + 1) * FileManifest.chunkBytes)])
        }
    }

    static func tree(of bytes: [UInt8]) -> FileTree { FileTree(leaves: chunks(of: bytes).map(FileTree.leaf)) }

    /// The files of the vectors: their manifests, contents (when listed) and ids.
    struct Sample {
        let label: String
        let manifest: FileManifest
        let content: Content?
        var file: MessageID { FileVectors.fileID(label) }
    }

    static func samples() throws -> [Sample] {
        let plain = content(FileManifest.chunkBytes + 1_000, 1, 0, 251)
        let picture = content(5_000, 7, 3, 256)
        let empty = content(0, 1, 0, 256)
        let thumbnail: [UInt8] = [0xff, 0xd8, 0xff]
        return [
            Sample(
                label: "plain",
                manifest: try FileManifest(
                    name: "report 2026.pdf", size: UInt64(plain.length), type: "application/pdf",
                    root: tree(of: plain.bytes).root),
                content: plain),
            Sample(
                label: "picture",
                manifest: try FileManifest(
                    name: "plage été.jpg", size: UInt64(picture.length), type: "image/jpeg",
                    root: tree(of: picture.bytes).root,
                    picture: FileManifest.Picture(width: 640, height: 480, thumbnail: thumbnail),
                    caption: "the beach, 📷 at noon"),
                content: picture),
            Sample(
                label: "empty",
                manifest: try FileManifest(
                    name: "empty", size: 0, type: "application/octet-stream", root: tree(of: empty.bytes).root),
                content: empty),
            Sample(
                label: "largest",
                manifest: try FileManifest(
                    name: "disk.img", size: FileManifest.maxFileBytes, type: "application/x-raw-disk-image",
                    root: Digest32(rawRepresentation: [UInt8](repeating: 0xee, count: 32))),
                content: nil),
        ]
    }

    static func manifestVector(_ sample: Sample) -> Manifest {
        let manifest = sample.manifest
        return Manifest(
            label: sample.label, file: hex(sample.file), name: manifest.name, size: manifest.size, type: manifest.type,
            root: hex(manifest.root), caption: manifest.caption,
            picture: manifest.picture.map { Picture(width: $0.width, height: $0.height, thumbnail: hex($0.thumbnail)) },
            content: sample.content, chunkCount: manifest.chunkCount,
            lastChunkBytes: manifest.chunkLength(manifest.chunkCount - 1), encoded: hex(manifest.encoded))
    }
}
