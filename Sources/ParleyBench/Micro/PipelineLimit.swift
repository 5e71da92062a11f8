import Foundation

/// The per-message limit the pipeline stands on, from the costs measured above: each node does its
/// share on a core of its own, and the nodes together have the machine's cores and no more. Two
/// nodes on two cores each have one; three nodes on two cores share them, so their limit is two
/// thirds of what three cores would allow (until 2026-11-27 it assumed a core per node, a rate no
/// 2-core machine can reach).
///
/// Messages travel in batches of `Throughput.burst` with one signature each (PROTOCOL §4.1), so a
/// sender pays a share of one signature per message and a receiver a share of one verification;
/// every message is still sealed, sent, opened and stored as one row on each node that holds it.
/// Between 2 nodes the slower of sender and receiver sets the pace. Among 3, each node sends a third
/// of the messages (sealed and sent to 2) and receives two thirds. Acks and sync are not counted: they
/// are what the design adds on top.
struct PipelineLimit: Sendable {
    let twoNodesSecondsPerMessage: Double
    let threeNodesSecondsPerMessage: Double
    let cores: Int

    init(
        crypto: CryptoLimits, udp: UDPLimit, sqlite: SQLiteLimits,
        cores: Int = ProcessInfo.processInfo.activeProcessorCount
    ) {
        self.cores = max(1, cores)
        let batch = Double(Throughput.burst)
        let sign = 1 / crypto.signPerSecond / batch
        let verify = 1 / crypto.verifyPerSecond / batch
        let aead = 1 / crypto.aeadPerSecond
        let datagram = 1 / udp.datagramsPerSecond
        let row = 1 / sqlite.rowsPerSecond
        let sender = sign + aead + datagram + row
        let receiver = aead + datagram + verify + row
        twoNodesSecondsPerMessage = Self.secondsPerMessage(perNode: [sender, receiver], cores: self.cores)
        let eachOfThree = (sign + 2 * (aead + datagram) + row) / 3 + 2 * receiver / 3
        threeNodesSecondsPerMessage = Self.secondsPerMessage(
            perNode: Array(repeating: eachOfThree, count: 3), cores: self.cores)
    }

    /// The slowest node on its own core, or all of them sharing the cores, whichever takes longer.
    static func secondsPerMessage(perNode: [Double], cores: Int) -> Double {
        max(perNode.max() ?? 0, perNode.reduce(0, +) / Double(min(cores, perNode.count)))
    }

    var twoNodesPerSecond: Double { 1 / twoNodesSecondsPerMessage }
    var threeNodesPerSecond: Double { 1 / threeNodesSecondsPerMessage }
}
