import ParleyCore
import ParleyCrypto
import Testing

extension FileVectors {
    static func make() throws -> FileVectors {
        let samples = try samples()
        return FileVectors(
            chatKey: hex(keyBytes), epoch: epochNumber, chat: hex(chatID), chunkBytes: FileManifest.chunkBytes,
            pieceBytes: ChunkPieces.pieceBytes, manifests: samples.map(manifestVector), refused: refusedManifests(),
            names: names(), trees: [1, 2, 3, 5].map(treeVector), badProofs: badProofs(),
            envelopes: try envelopes(samples), refusedEnvelopes: try refusedEnvelopes(samples),
            frames: try frames(samples), refusedFrames: refusedFrames())
    }

    static var key: EpochKey { EpochKey(epoch: epochNumber, key: (try? ChatKey(rawRepresentation: keyBytes))!) }

    // MARK: manifests

    /// A manifest's bytes written field by field, so that broken ones can be made.
    static func rawManifest(
        version: UInt8 = 1, flags: UInt8 = 0, name: [UInt8] = Array("notes.txt".utf8), size: UInt64 = 3,
        type: String = "text/plain", caption: [UInt8] = [],
        picture: (width: UInt32, height: UInt32, thumbnail: Int)? = nil
    ) -> [UInt8] {
        var out: [UInt8] = [version, flags, UInt8(name.count)] + name
        out += withUnsafeBytes(of: size.bigEndian, Array.init)
        out += [UInt8(type.utf8.count)] + Array(type.utf8)
        out += [UInt8](repeating: 0x5a, count: 32)
        out += withUnsafeBytes(of: UInt16(caption.count).bigEndian, Array.init) + caption
        if let picture {
            out += withUnsafeBytes(of: picture.width.bigEndian, Array.init)
            out += withUnsafeBytes(of: picture.height.bigEndian, Array.init)
            out += withUnsafeBytes(of: UInt16(picture.thumbnail).bigEndian, Array.init)
            out += [UInt8](repeating: 0x01, count: picture.thumbnail)
        }
        return out
    }

    static func refusedManifests() -> [Refused] {
        let valid = rawManifest()
        let cases: [(String, String, [UInt8])] = [
            ("version 2", "version", rawManifest(version: 2)),
            ("unknown flag 0x02", "flags", rawManifest(flags: 2)),
            ("flags 0x03: a picture and an unknown flag", "flags", rawManifest(flags: 3, picture: (1, 1, 0))),
            ("cut one byte short", "truncated", Array(valid.dropLast())),
            ("a picture flag with no picture part", "truncated", rawManifest(flags: 1)),
            ("one trailing byte", "trailing", valid + [0]),
            ("a picture part without the picture flag", "trailing", rawManifest(picture: (1, 1, 0))),
            ("a name that is not UTF-8", "utf8", rawManifest(name: [0x61, 0xff, 0x62])),
            ("the name ../x", "name", rawManifest(name: Array("../x".utf8))),
            ("a name holding U+202E", "name", rawManifest(name: Array("photo\u{202E}gpj.exe".utf8))),
            ("the name .hidden", "name", rawManifest(name: Array(".hidden".utf8))),
            ("an empty name", "name", rawManifest(name: [])),
            ("a name ending in a space", "name", rawManifest(name: Array("notes ".utf8))),
            ("a name holding a tab", "name", rawManifest(name: Array("a\tb".utf8))),
            ("size 2^40 + 1", "size", rawManifest(size: FileManifest.maxFileBytes + 1)),
            ("size 2^64 - 1", "size", rawManifest(size: .max)),
            ("type in upper case", "type", rawManifest(type: "Text/Plain")),
            ("type without a subtype", "type", rawManifest(type: "text")),
            ("type with an empty subtype", "type", rawManifest(type: "text/")),
            ("type with two slashes", "type", rawManifest(type: "text/plain/x")),
            ("type with a parameter", "type", rawManifest(type: "text/plain;charset=utf-8")),
            ("caption of 4,097 bytes", "caption", rawManifest(caption: [UInt8](repeating: 0x61, count: 4_097))),
            ("picture width 0", "picture", rawManifest(flags: 1, picture: (0, 10, 0))),
            ("picture height 100,001", "picture", rawManifest(flags: 1, picture: (10, 100_001, 0))),
            ("thumbnail of 8,001 bytes", "thumbnail", rawManifest(flags: 1, picture: (10, 10, 8_001))),
        ]
        return cases.map { label, rule, bytes in
            let outcome: String
            do {
                _ = try FileManifest(decoding: bytes)
                outcome = "accepted"
            } catch { outcome = "\(error)" }
            return Refused(label: label, rule: rule, encoded: hex(bytes), error: outcome)
        }
    }

    // MARK: names

    static func names() -> [Name] {
        let cases: [(String, String)] = [
            ("a plain name", "report.pdf"),
            ("a path climbing up", "../x"),
            ("a right-to-left override", "photo\u{202E}gpj.exe"),
            ("a leading dot", ".hidden"),
            ("leading and trailing dots and spaces", " . spaced out . "),
            ("a Windows path", "C:\\Users\\me\\notes.txt"),
            ("a tab and a line separator", "tab\there\u{2028}now"),
            ("empty", ""),
            ("dots only", "..."),
            ("a zero-width space only", "\u{200B}"),
            ("a private-use and a noncharacter code point", "a\u{E000}b\u{FFFE}c.txt"),
            ("a leading dot carrying a combining mark", ".\u{301}profile"),
            ("decomposed accents stay as sent", "e\u{301}te\u{301}.txt"),
            ("emoji", "🎉 party 🎉.png"),
            ("too long: the extension is kept", String(repeating: "a", count: 300) + ".jpeg"),
            (
                "too long: an extension over 16 bytes is cut with the rest",
                String(repeating: "b", count: 300) + ".averylongextension"
            ),
            ("too long, two bytes a character", String(repeating: "é", count: 200) + ".txt"),
            ("too long: the cut ends on a space, which goes", String(repeating: "a", count: 254) + " bbbbbbbbbb"),
            (
                "too long: the cut ends on a dot, which goes",
                String(repeating: "a", count: 254) + ".bbbbbbbbbbbbbbbbbbbbbbbbbbbb"
            ),
        ]
        return cases.map { label, raw in
            Name(
                label: label, raw: hex(raw.utf8), sanitized: hex(FileName.sanitized(raw).utf8),
                accepted: FileName.isSanitized(raw))
        }
    }

    // MARK: trees

    static func treeChunks(_ count: Int) -> [[UInt8]] { (0..<count).map { Array("chunk \($0) of \(count)".utf8) } }

    static func treeVector(_ count: Int) -> Tree {
        let chunks = treeChunks(count)
        let tree = FileTree(leaves: chunks.map(FileTree.leaf))
        return Tree(
            chunks: chunks.map(hex), leaves: chunks.map { hex(FileTree.leaf($0)) }, root: hex(tree.root),
            proofs: (0..<count).map { tree.proof(for: $0).map(hex) })
    }

    static func badProofs() -> [BadProof] {
        let trees = [1, 3, 5].map { ($0, FileTree(leaves: treeChunks($0).map(FileTree.leaf))) }
        func bad(_ label: String, _ count: Int, _ index: Int, _ proof: (FileTree) -> [Digest32]) -> BadProof {
            let tree = trees.first { $0.0 == count }!.1
            let leaf = FileTree.leaf(treeChunks(count)[min(index, count - 1)])
            return BadProof(label: label, count: count, index: index, leaf: hex(leaf), proof: proof(tree).map(hex))
        }
        return [
            bad("another leaf's proof", 5, 4) { $0.proof(for: 3) },
            bad("one hash too many", 5, 4) { $0.proof(for: 4) + [FileTree.leaf(treeChunks(5)[0])] },
            bad("one hash too few", 5, 0) { Array($0.proof(for: 0).dropLast()) },
            bad("an index past the last leaf (the last leaf's hash and proof)", 5, 5) { $0.proof(for: 4) },
            bad("siblings in the wrong order", 3, 0) { $0.proof(for: 0).reversed() },
            bad("a lone leaf with a proof", 1, 0) { [$0.root] },
        ]
    }

    // MARK: envelopes

    static func associatedData(file: MessageID, index: Int, epoch: UInt32) -> [UInt8] {
        Array("parley chunk v1".utf8) + chatID.rawRepresentation + file.rawRepresentation
            + withUnsafeBytes(of: UInt32(index).bigEndian, Array.init)
            + withUnsafeBytes(of: epoch.bigEndian, Array.init)
    }

    static func seal(_ sample: Sample, _ index: Int, file: MessageID? = nil) throws -> [UInt8] {
        let bytes = try #require(sample.content).bytes
        let tree = tree(of: bytes)
        return ChunkEnvelope.seal(
            chunks(of: bytes)[index], index: index, proof: tree.proof(for: index), key: key, chat: chatID,
            file: file ?? sample.file)
    }

    static func envelopes(_ samples: [Sample]) throws -> [Envelope] {
        let picks: [(String, Int)] = [("plain", 0), ("plain", 1), ("picture", 0), ("empty", 0)]
        return try picks.map { label, index in
            let sample = try #require(samples.first { $0.label == label })
            let envelope = try seal(sample, index)
            let proofCount = Int(envelope[0])
            let nonceStart = 1 + proofCount * 32 + 4
            let pieces = ChunkPieces.count(envelopeBytes: envelope.count)
            return Envelope(
                manifest: label, index: index, epoch: epochNumber,
                proof: (0..<proofCount).map { hex(envelope[1 + $0 * 32..<1 + ($0 + 1) * 32]) },
                associatedData: hex(associatedData(file: sample.file, index: index, epoch: epochNumber)),
                nonce: hex(envelope[nonceStart..<nonceStart + 24]), length: envelope.count,
                hash: hex(BLAKE2b.hash256(envelope)), envelope: envelope.count <= 4_096 ? hex(envelope) : nil,
                head: hex(envelope.prefix(128)), pieces: pieces,
                lastPieceBytes: ChunkPieces.piece(pieces - 1, of: envelope).count)
        }
    }

    static func refusedEnvelopes(_ samples: [Sample]) throws -> [RefusedEnvelope] {
        let plain = try #require(samples.first { $0.label == "plain" })
        let picture = try #require(samples.first { $0.label == "picture" })
        let good = try seal(plain, 1)
        var cipher = good
        cipher[good.count - 20] ^= 0x01
        var proof = good
        proof[5] ^= 0x80
        var epoch = good
        epoch[1 + 32 + 3] = 4
        let longProof = [2] + good[1..<33] + good[1..<33] + good[33...]
        let cases: [(String, [UInt8], String)] = [
            ("a ciphertext byte flipped", cipher, "unopenable"),
            ("a proof byte flipped: the seal opens, the path misses the root", proof, "hashMismatch"),
            ("its epoch field set to 4, for which no key is held", epoch, "unopenable"),
            ("sealed for another file", try seal(plain, 1, file: picture.file), "unopenable"),
            ("one byte short", Array(good.dropLast()), "malformed"),
            ("a proof count above the tree's depth", Array(longProof), "malformed"),
        ]
        return cases.map { label, bytes, refusal in
            RefusedEnvelope(label: label, manifest: "plain", index: 1, envelope: hex(bytes), refusal: refusal)
        }
    }

    // MARK: frames

    static func pieceFrame(_ envelope: [UInt8], file: MessageID, chunk: UInt32, piece: Int) -> Frame {
        let count = ChunkPieces.count(envelopeBytes: envelope.count)
        return .filePiece(
            FilePiece(
                file: file, chunk: chunk, piece: UInt8(piece), pieces: UInt8(count),
                bytes: Array(ChunkPieces.piece(piece, of: envelope))))
    }

    static func frames(_ samples: [Sample]) throws -> [FrameVector] {
        let plain = try #require(samples.first { $0.label == "plain" })
        let first = try seal(plain, 0), last = try seal(plain, 1)
        let cases: [(String, Frame)] = [
            (
                "fileWant: chunk 1 whole (a first ask names every piece), pieces 3 and 57 of chunk 0 again",
                .fileWant(
                    file: plain.file,
                    wants: [ChunkWant(chunk: 1, pieces: .max), ChunkWant(chunk: 0, pieces: 1 << 3 | 1 << 57)])
            ),
            ("filePiece: piece 0 of chunk 0", pieceFrame(first, file: plain.file, chunk: 0, piece: 0)),
            ("filePiece: piece 57, the last, of chunk 0", pieceFrame(first, file: plain.file, chunk: 0, piece: 57)),
            ("filePiece: the only piece of chunk 1", pieceFrame(last, file: plain.file, chunk: 1, piece: 0)),
            ("fileLack", .fileLack(file: plain.file)),
        ]
        return cases.map { FrameVector(label: $0, encoded: hex(Frame.encode([$1]))) }
    }

    static func frame(_ type: UInt8, _ body: [UInt8]) -> [UInt8] {
        [type] + withUnsafeBytes(of: UInt32(body.count).bigEndian, Array.init) + body
    }

    static func refusedFrames() -> [FrameVector] {
        let file = fileID("plain").rawRepresentation
        func want(_ entries: Int, mask: UInt64 = 1) -> [UInt8] {
            file
                + (0..<entries).flatMap {
                    withUnsafeBytes(of: UInt32($0).bigEndian, Array.init)
                        + withUnsafeBytes(of: mask.bigEndian, Array.init)
                }
        }
        func piece(_ piece: UInt8, of count: UInt8, bytes: Int) -> [UInt8] {
            file + [0, 0, 0, 0, piece, count] + [UInt8](repeating: 0x33, count: bytes)
        }
        let cases: [(String, [UInt8])] = [
            ("fileWant naming no chunk", frame(17, want(0))),
            ("fileWant with a zero piece mask", frame(17, want(1, mask: 0))),
            ("fileWant with 65 chunks", frame(17, want(65))),
            ("fileWant with a partial entry", frame(17, want(1) + [0])),
            ("filePiece whose piece is its count", frame(18, piece(2, of: 2, bytes: 10))),
            ("filePiece of 0 pieces", frame(18, piece(0, of: 0, bytes: 10))),
            ("filePiece of 65 pieces", frame(18, piece(0, of: 65, bytes: 10))),
            ("filePiece with no bytes", frame(18, piece(0, of: 1, bytes: 0))),
            ("filePiece of 1,141 bytes", frame(18, piece(0, of: 1, bytes: 1_141))),
            ("fileLack of 31 bytes", frame(19, Array(file.dropLast()))),
            ("fileLack of 33 bytes", frame(19, file + [0])),
        ]
        return cases.map { FrameVector(label: $0, encoded: hex($1)) }
    }
}
