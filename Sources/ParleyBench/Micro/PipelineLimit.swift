/// The per-message limit the pipeline stands on: the sum of one message's costs, each measured above.
///
/// Between 2 nodes a message is signed once, sealed and opened once, sent as one datagram, verified once,
/// and stored as one row on each node. Among 3 it is sealed, sent and verified for each of 2 receivers and
/// stored on 3 nodes. Acks and sync are not counted: they are what the design adds on top.
struct PipelineLimit: Sendable {
    let twoNodesSecondsPerMessage: Double
    let threeNodesSecondsPerMessage: Double

    init(crypto: CryptoLimits, udp: UDPLimit, sqlite: SQLiteLimits) {
        let sign = 1 / crypto.signPerSecond
        let verify = 1 / crypto.verifyPerSecond
        let aead = 1 / crypto.aeadPerSecond
        let datagram = 1 / udp.datagramsPerSecond
        let row = 1 / sqlite.rowsPerSecond
        twoNodesSecondsPerMessage = sign + aead + datagram + verify + 2 * row
        threeNodesSecondsPerMessage = sign + 2 * (aead + datagram + verify) + 3 * row
    }

    var twoNodesPerSecond: Double { 1 / twoNodesSecondsPerMessage }
    var threeNodesPerSecond: Double { 1 / threeNodesSecondsPerMessage }
}
