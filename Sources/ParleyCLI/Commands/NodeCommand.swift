public import ArgumentParser
import Foundation
import Logging
import ParleyCore
import ParleyCrypto
import ParleyAPI
import ParleyControlSocket
import ParleyNode
import ParleyStore
import ParleyTransport

struct NodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "node", abstract: "Run a peer in the foreground until SIGINT or SIGTERM.")

    @Option(help: "The secret key file (mode 0600), e.g. keys/alice.key.")
    var key: String

    @Option(help: "The data directory: store and control socket.")
    var data: String

    @Option(help: "Where to listen for peers, HOST:PORT.")
    var listen = "127.0.0.1:7001"

    @Option(name: .customLong("peer"), help: "A peer to announce ourselves to, HOST:PORT; repeat for several.")
    var peers: [String] = []

    @Flag(help: "Find peers on the LAN with signed multicast announcements.")
    var discover = false

    @Option(help: "Whose chat invites to accept: contacts (default) or anyone.")
    var acceptInvites: InvitePolicy = .contacts

    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel = "info"

    func run() async throws {
        let identity = try IdentityFile.loadSecret(path: key)
        let listenAddress = try PeerAddress(parsing: listen)
        let bootstrap = try peers.map { try PeerAddress(parsing: $0) }
        guard let level = Logger.Level(rawValue: logLevel) else { throw ValidationError("unknown log level '\(logLevel)'") }
        try DataDirectory.create(data)

        var logger = Logger(label: "parley")
        logger.logLevel = level
        let store = try MessageStore.open(path: "\(data)/parley.sqlite")
        try await claimDataDirectory(store: store, identity: identity)
        let discovery = discover ? DiscoveryOptions(interfaceAddress: listenAddress.host) : nil
        let transport = try await UDPTransport.bind(host: listenAddress.host, port: Int(listenAddress.port), discovery: discovery)
        var configuration = NodeConfiguration(identity: identity, bootstrapPeers: bootstrap, discovery: discover)
        configuration.invitePolicy = acceptInvites
        let node = Node(
            configuration: configuration,
            store: store, transport: transport, logger: logger)
        for contact in try store.contacts() {
            if let address = contact.address { await node.learnAddress(address, for: contact.peer) }
        }
        let service = APIService(node: node, selfName: URL(fileURLWithPath: key).deletingPathExtension().lastPathComponent)
        let socketPath = ControlClient.socketPath(dataDirectory: data)
        let server = try await ControlServer.start(service: service, socketPath: socketPath)
        print("parley node \(identity.publicKey.hex) listening on \(transport.localAddress) (data \(data))")
        fflush(nil)

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await node.run() }
            group.addTask { try await server.run() }
            group.addTask { await ShutdownSignal.wait() }
            _ = try await group.next() // a signal, or a failure of either service
            group.cancelAll()
            await node.shutdown()
            await server.close()
        }
        logger.info("stopped")
    }
}

extension NodeCommand {
    /// A data directory belongs to the identity that first ran a node on it: its chats, keys and history
    /// were received for that key. Another key is refused before the node writes anything or binds a socket.
    private func claimDataDirectory(store: MessageStore, identity: Identity) async throws {
        let owner = try await store.claimOwner(identity.publicKey)
        guard owner != identity.publicKey else { return }
        throw CLIError(
            "this data directory (\(data)) belongs to \(owner.hex.prefix(12))…; it was started with \(identity.publicKey.hex.prefix(12))… "
                + "(\(key)): start it with its owner's key, or use another --data directory",
            kind: .forbidden)
    }
}

extension InvitePolicy: ExpressibleByArgument {}
