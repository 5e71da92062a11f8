import FuzzSupport
import ParleyCore

// `FileManifest(decoding:)` on the input: a manifest that decodes re-encodes to the input, carries a
// name in sanitised form and gives every chunk a length. `FileName.sanitized` on the input read as
// UTF-8 (ill-formed sequences become U+FFFD): its result is sanitised already, scalar for scalar
// (sanitising is idempotent, so a sender's own sanitised name is never refused), non-empty and at
// most 255 bytes.
Fuzzer.main(seeds: seeds) { bytes in
    if let manifest = try? FileManifest(decoding: bytes) {
        if manifest.encoded != bytes { Fuzzer.fail("a decoded manifest does not re-encode to its bytes") }
        if !FileName.isSanitized(manifest.name) { Fuzzer.fail("a manifest was accepted with a name not sanitised") }
        let count = manifest.chunkCount
        let total = UInt64(count - 1) * UInt64(FileManifest.chunkBytes) + UInt64(manifest.chunkLength(count - 1))
        if count < 1 || total != manifest.size { Fuzzer.fail("a manifest's chunks do not add up to its size") }
    }
    let raw = String(decoding: bytes, as: UTF8.self)
    let once = FileName.sanitized(raw)
    let twice = FileName.sanitized(once)
    guard Array(twice.unicodeScalars) == Array(once.unicodeScalars), FileName.isSanitized(once) else {
        Fuzzer.fail("sanitising a sanitised name changed it")
    }
    if once.isEmpty || once.utf8.count > FileName.maxBytes {
        Fuzzer.fail("a sanitised name is \(once.utf8.count) bytes")
    }
}

/// A plain file, a picture with a thumbnail and caption, and names near the rules' edges.
func seeds() throws -> [[UInt8]] {
    let root = try Digest32(rawRepresentation: [UInt8](repeating: 0x5a, count: 32))
    let picture = FileManifest.Picture(width: 640, height: 480, thumbnail: [0xff, 0xd8, 0xff])
    let manifests = [
        try FileManifest(name: "report 2026.pdf", size: 66_536, type: "application/pdf", root: root),
        try FileManifest(
            name: "plage été.jpg", size: 5_000, type: "image/jpeg", root: root, picture: picture, caption: "the beach"),
        try FileManifest(name: "empty", size: 0, type: "application/octet-stream", root: root),
        try FileManifest(
            name: String(repeating: "é", count: 125) + ".txt", size: FileManifest.maxFileBytes, type: "text/plain",
            root: root),
    ]
    let names = [
        "../x", "photo\u{202E}gpj.exe", " . spaced . ", ".\u{301}profile", String(repeating: "a", count: 254) + " b",
    ]
    return manifests.map(\.encoded) + names.map { Array($0.utf8) }
}
