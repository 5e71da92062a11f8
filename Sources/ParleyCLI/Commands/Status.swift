import ArgumentParser
import ParleyAPI

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The node's peers and protocol counters.")
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await runRequest(.status, options: options, as: StatusView.self) { status in
            var lines = ["peer \(status.peer)", "listening on \(status.listen)"]
            lines.append("connected: \(status.connectedPeers.map { String($0.prefix(12)) }.joined(separator: ", "))")
            lines.append(
                "datagrams in \(status.datagramsIn), out \(status.datagramsOut), awaiting ack \(status.pendingRetransmits)"
            )
            lines.append(
                "messages stored from their authors \(status.storedFromAuthors), relayed by other members \(status.storedRelayed) ("
                    + "\(Int((status.relayedShare * 100).rounded())) % relayed); pushed on for members relayed here \(status.relayedOnward)"
            )
            lines.append(
                "frames sent again for want of an ack \(status.framesRetransmitted), messages sent in sync replies \(status.syncMessagesSent)"
            )
            lines.append("file chunks fetched \(status.fileChunksFetched), served \(status.fileChunksServed)")
            let rejections = status.rejections.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            lines.append("rejected: \(rejections.isEmpty ? "none" : rejections.joined(separator: ", "))")
            return lines.joined(separator: "\n")
        }
    }
}
