public import ArgumentParser
import Foundation
import Logging
import ParleyCore
import ParleyCrypto
import ParleyAPI
import ParleyControlSocket
import ParleyHTTP
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

    @Option(help: ArgumentHelp(
        "Serve the web app on HOST:PORT (port 0: any free port); 'parley web' prints its login URL.",
        discussion: "Off unless given. Loopback (127.0.0.1) is recommended: on another address anyone on the LAN who gets the token can act as you."))
    var web: String?

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
        let webServer = try web.map { try makeWebServer($0, service: service, logger: logger) }
        // Only while the web app is served: at exit, and left over from a node that was killed.
        defer { WebAddressFile.remove(dataDirectory: data) }
        print("parley node \(identity.publicKey.hex) listening on \(transport.localAddress) (data \(data))")
        fflush(nil)

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await node.run() }
            group.addTask { try await server.run() }
            if let webServer { group.addTask { try await webServer.run() } }
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

    /// The web app's server over the same dispatcher as the control socket; it writes DATA/web-address
    /// once it listens, and the token file is made on first use.
    func makeWebServer(_ text: String, service: APIService, logger: Logger) throws -> WebServer {
        let address = try WebAddress(parsing: text)
        if !address.isLoopback {
            FileHandle.standardError.write(Data("""
                warning: the web app listens on \(address), beyond this machine: anyone on the LAN who gets the \
                login token can act as this user. Use 127.0.0.1 unless you mean it.\n
                """.utf8))
        }
        WebAddressFile.remove(dataDirectory: data)
        let token = try WebToken.loadOrCreate(dataDirectory: data)
        let data = data
        return try WebServer(service: service, token: token, address: address, logger: logger) { bound in
            do {
                try WebAddressFile.write(bound, dataDirectory: data)
                print("web app on http://\(bound) ('parley web --data \(data)' prints the login URL)")
                fflush(nil)
            } catch {
                logger.error("the web app's address file could not be written", metadata: ["error": "\(error)"])
            }
        }
    }
}

extension InvitePolicy: ExpressibleByArgument {}
