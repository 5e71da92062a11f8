import Foundation
import ParleyCore
import ParleyNode
import ParleyStore

/// A file between nodes on loopback (PROTOCOL.md §13e): alice sends it, bob fetches it from alice
/// alone, then carol from alice and bob at once; each fetch timed from asking to the file whole on
/// disk, checked. Against it: a plain copy of the same file on the same disk.
struct FileTransfer: Sendable {
    /// A full piece's datagram: 1,140 bytes of envelope, the frame's 43, the packet's 14 and tag's 16.
    static let datagramBytes = ChunkPieces.pieceBytes + 43 + 14 + 16

    let bytes: Int
    let fromOneSeconds: Double
    let fromBothSeconds: Double
    let copySeconds: Double

    var fromOneMBps: Double { Double(bytes) / fromOneSeconds / 1_048_576 }
    var fromBothMBps: Double { Double(bytes) / fromBothSeconds / 1_048_576 }
    var copyMBps: Double { Double(bytes) / copySeconds / 1_048_576 }

    static func measure(_ scale: Scale, directory: String) async throws -> FileTransfer {
        let path = "\(directory)/file-phase.bin"
        try writeRandomFile(path, bytes: scale.fileBytes)
        let (_, copySeconds) = try await Measure.time {
            try FileManager.default.copyItem(atPath: path, toPath: path + ".copy")
        }
        try FileManager.default.removeItem(atPath: path + ".copy")
        let peers = try await BenchPeer.group(3, directory: directory, name: "files")
        return try await BenchPeer.running(peers) {
            let (alice, bob, carol) = (peers[0].node, peers[1].node, peers[2].node)
            let chat = try await BenchPeer.chat(peers, title: "files")
            let sent = try await alice.sendFile(chat: chat, path: path).id
            for node in [bob, carol] { try await waitUntil(.seconds(30)) { (try? node.file(sent)) != nil } }
            let fromOne = try await fetch(sent, by: bob)
            let fromBoth = try await fetch(sent, by: carol)
            for node in [bob, carol] {
                guard FileManager.default.contentsEqual(atPath: try node.heldFilePath(sent), andPath: path) else {
                    throw BenchError("a fetched copy differs from the file sent")
                }
            }
            return FileTransfer(
                bytes: scale.fileBytes, fromOneSeconds: fromOne, fromBothSeconds: fromBoth, copySeconds: copySeconds)
        }
    }

    private static func fetch(_ id: MessageID, by node: Node) async throws -> Double {
        let (_, seconds) = try await Measure.time {
            try await node.fetchFile(id)
            try await waitUntil(.seconds(300)) { (try? node.file(id).isHeld) ?? false }
        }
        return seconds
    }

    /// Polls every 5 ms, at most `timeout`: each poll reads the store, and every millisecond that
    /// took a share of the cores the fetch runs on (the reading is off by at most 5 ms in 0.5 s or more).
    private static func waitUntil(_ timeout: Duration, _ condition: () -> Bool) async throws {
        guard try await Measure.waitUntil(timeout: timeout, interval: .milliseconds(5), condition) else {
            throw BenchError("a file fetch did not finish within \(timeout)")
        }
    }

    private static func writeRandomFile(_ path: String, bytes: Int) throws {
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var state: UInt64 = 37
        for _ in 0..<(bytes / 65_536) {
            let chunk = (0..<8_192).flatMap { _ -> [UInt8] in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return withUnsafeBytes(of: state) { Array($0) }
            }
            try handle.write(contentsOf: chunk)
        }
    }
}
