import Foundation
import Testing

/// A file across hosts of network namespaces that drop datagrams at random (nftables `numgen random`):
/// it arrives byte for byte (PROTOCOL.md §13e): 50 MiB at 10% and 30%, in the long run only
/// (`Tests/reliability/run-long.sh`). In the test command its minutes of waiting held threads of the
/// cooperative pool that other suites' async tests need, which then ran past their limits.
@Suite(.serialized, .timeLimit(.minutes(20)), .enabled(if: Reliability.long, "the long run's (PARLEY_LONG=1)"))
struct LANFilesTests {
    static let bytes = Reliability.long ? 50 << 20 : 4 << 20

    @Test(arguments: Reliability.lossPercents)
    func aFileArrivesIdenticalUnderRandomLoss(_ percent: Int) throws {
        // Given alice and bob on two hosts of one bridge, a chat, and every host dropping `percent`%
        let cluster = try LANCluster(hosts: ["alice", "bob"])
        defer { cluster.stop() }
        let chat = try cluster.makeChat("Lossy file \(percent)")
        let parley = cluster.parley
        let original = Data((0..<Self.bytes).map { _ in UInt8.random(in: 0...255) })
        try original.write(to: URL(fileURLWithPath: "\(parley.workspace)/data.bin"))
        let sent = try parley.client("alice", ["send", chat, "--file", "\(parley.workspace)/data.bin", "--json"])
        let id = try #require(
            (try JSONSerialization.jsonObject(with: Data(sent.utf8)) as? [String: Any])?["id"] as? String)
        #expect(cluster.eventually(seconds: 60) { try parley.client("bob", ["files", chat]).contains("data.bin") })
        try cluster.bed.setLoss(percent: percent)

        // When bob fetches it
        let start = Date()
        let folder = "\(parley.workspace)/saved"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = try parley.run(["files", "get", chat, id, "--to", folder, "--timeout", "900", "--data", parley.data("bob")])
        let seconds = Date().timeIntervalSince(start)

        // Then his copy is alice's bytes, though the network dropped datagrams all along
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/data.bin")) == original)
        let dropped = try cluster.bed.droppedByLoss()
        #expect(dropped > 0)
        Reliability.figure(
            "file_\(Self.bytes >> 20)MiB_loss\(percent)_seconds", String(format: "%.1f", seconds))
        Reliability.figure("file_\(Self.bytes >> 20)MiB_loss\(percent)_dropped", "\(dropped)")
    }
}
