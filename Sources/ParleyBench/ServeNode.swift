import ArgumentParser
import Foundation
import Logging
import ParleyCore
import ParleyCrypto
import ParleyAPI
import ParleyControlSocket
import ParleyNode
import ParleyStore
import ParleyTransport

/// Hidden: a node process as `parley node` runs it (store, UDP on 127.0.0.1, control socket), so the
/// benchmark can time its start-up and read its peak RSS from outside. It stops by itself after `--for`.
struct ServeNode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve-node", abstract: "Run a node for the benchmark to probe.", shouldDisplay: false)

    @Option(help: "The secret key file.")
    var key: String

    @Option(help: "The data directory: parley.sqlite and control.sock.")
    var data: String

    @Option(name: .customLong("for"), help: "Seconds to run before exiting on its own.")
    var seconds = 120

    func run() async throws {
        let identity = try IdentityFile.loadSecret(path: key)
        var logger = Logger(label: "parley-bench.serve-node")
        logger.logLevel = .warning
        let store = try MessageStore.open(path: "\(data)/parley.sqlite")
        // As `parley node` does at start: the data directory belongs to the first key run on it.
        guard try await store.claimOwner(identity.publicKey) == identity.publicKey else {
            throw ValidationError("the data directory \(data) belongs to another identity")
        }
        let transport = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
        let node = Node(
            configuration: NodeConfiguration(identity: identity), store: store, transport: transport, logger: logger)
        let server = try await ControlServer.start(
            service: APIService(node: node, selfName: "bench"), socketPath: "\(data)/control.sock")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await node.run() }
            group.addTask { try await server.run() }
            group.addTask { try await Task.sleep(for: .seconds(seconds)) }
            _ = try await group.next()
            group.cancelAll()
            await node.shutdown()
            await server.close()
        }
    }
}
