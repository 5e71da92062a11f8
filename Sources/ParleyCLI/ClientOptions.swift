import ArgumentParser
import Foundation
import ParleyControlSocket

/// What can reach a node: `NodeOptions`, or `ClientOptions`, which adds the output format.
protocol NodeConnecting: Sendable {
    func client() async throws -> ControlClient
}

/// Which node to talk to: every client command takes it.
struct NodeOptions: ParsableArguments, NodeConnecting {
    @Option(name: .long, help: "The node's data directory (default: $PARLEY_DATA).")
    var data: String?

    func dataDirectory() throws -> String {
        let environment = ProcessInfo.processInfo.environment["PARLEY_DATA"].flatMap { $0.isEmpty ? nil : $0 }
        guard let directory = data ?? environment else {
            throw ValidationError("no data directory: pass --data DIR or set PARLEY_DATA")
        }
        try DataDirectory.check(directory)
        return directory
    }

    func client() async throws -> ControlClient {
        try await ControlClient.connect(dataDirectory: try dataDirectory())
    }
}

/// Options every client command with an answer shares: which node to talk to, and the output format.
/// (`parley open`, a conversation rather than an answer, takes `NodeOptions` alone.)
struct ClientOptions: ParsableArguments, NodeConnecting {
    @OptionGroup var node: NodeOptions

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    func dataDirectory() throws -> String { try node.dataDirectory() }

    func client() async throws -> ControlClient { try await node.client() }
}
