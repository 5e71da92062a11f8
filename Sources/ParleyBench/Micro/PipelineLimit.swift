/// The per-message limit the pipeline stands on, from the costs measured above, counting what each
/// node does on its own core (the bench runs one node per core's worth of work, two cores in all).
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

    init(crypto: CryptoLimits, udp: UDPLimit, sqlite: SQLiteLimits) {
        let batch = Double(Throughput.burst)
        let sign = 1 / crypto.signPerSecond / batch
        let verify = 1 / crypto.verifyPerSecond / batch
        let aead = 1 / crypto.aeadPerSecond
        let datagram = 1 / udp.datagramsPerSecond
        let row = 1 / sqlite.rowsPerSecond
        let sender = sign + aead + datagram + row
        let receiver = aead + datagram + verify + row
        twoNodesSecondsPerMessage = max(sender, receiver)
        threeNodesSecondsPerMessage = (sign + 2 * (aead + datagram) + row) / 3 + 2 * receiver / 3
    }

    var twoNodesPerSecond: Double { 1 / twoNodesSecondsPerMessage }
    var threeNodesPerSecond: Double { 1 / threeNodesSecondsPerMessage }
}
