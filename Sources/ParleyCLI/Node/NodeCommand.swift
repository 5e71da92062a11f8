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

    @Option(
        help: ArgumentHelp(
            "Serve the web app on HOST:PORT (port 0: any free port); 'parley web' prints its login URL.",
            discussion: """
                Off unless given. Loopback (127.0.0.1) is plain HTTP. Any other address is HTTPS with a \
                self-signed certificate kept in the data directory (web-tls-cert.pem, its key web-tls-key.pem), \
                made on first start; the node and 'parley web' print its SHA-256 fingerprint, to compare with \
                the one the browser shows.
                """))
    var web: String?

    @Flag(name: .customLong("web-tls"), help: "Serve the web app over HTTPS on loopback too.")
    var webTLS = false

    @Flag(
        help: ArgumentHelp(
            "Serve the web app as plain HTTP on a non-loopback --web address.",
            discussion:
                "Then login links, session cookies and every message the page shows cross the network readable by anyone on it."
        ))
    var insecureHTTP = false

    @Option(help: "The largest file this node sends or fetches, in MiB.")
    var maxFileMib: Int64 = 100

    @Option(help: "All file bytes this node keeps, in MiB; past it the oldest fetched files are evicted.")
    var fileQuotaMib: Int64 = 2_048

    @Option(help: "Pictures up to this size (MiB) are fetched as they arrive; 0: none. Other files never are.")
    var autoFetchMib: Int64 = 10

    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel = "info"

    func validate() throws {
        guard maxFileMib >= 1, fileQuotaMib >= maxFileMib, autoFetchMib >= 0 else {
            throw ValidationError(
                "--max-file-mib must be at least 1, --file-quota-mib at least --max-file-mib, --auto-fetch-mib at least 0"
            )
        }
        if web == nil, webTLS || insecureHTTP {
            throw ValidationError(
                "\(webTLS ? "--web-tls" : "--insecure-http") is about the web app: give --web HOST:PORT too")
        }
    }

    func run() async throws {
        let identity = try IdentityFile.loadSecret(path: key)
        let listenAddress = try PeerAddress(parsing: listen)
        let bootstrap = try peers.map { try PeerAddress(parsing: $0) }
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("unknown log level '\(logLevel)'")
        }
        try DataDirectory.create(data)

        var logger = Logger(label: "parley")
        logger.logLevel = level
        let store = try MessageStore.open(path: "\(data)/parley.sqlite")
        try await claimDataDirectory(store: store, identity: identity)
        let discovery = discover ? DiscoveryOptions(interfaceAddress: listenAddress.host) : nil
        let transport = try await UDPTransport.bind(
            host: listenAddress.host, port: Int(listenAddress.port), discovery: discovery)
        var configuration = NodeConfiguration(identity: identity, bootstrapPeers: bootstrap, discovery: discover)
        configuration.invitePolicy = acceptInvites
        try DataDirectory.create("\(data)/files")
        configuration.files.directory = "\(data)/files"
        configuration.files.maxFileBytes = maxFileMib << 20
        configuration.files.quotaBytes = fileQuotaMib << 20
        configuration.files.autoFetchPictureBytes = autoFetchMib << 20
        let node = Node(
            configuration: configuration,
            store: store, transport: transport, logger: logger)
        for contact in try store.contacts() {
            if let address = contact.address { await node.learnAddress(address, for: contact.peer) }
        }
        var service = APIService(
            node: node, selfName: URL(fileURLWithPath: key).deletingPathExtension().lastPathComponent)
        let webApp = try web.map { try makeWebApp($0, service: service, logger: logger) }
        // `parley web` asks for login links and revokes over the control socket, never over HTTP.
        service.web = webApp?.server.access
        // Only while the web app is served: at exit, and left over from a node that was killed.
        defer { WebAddressFile.remove(dataDirectory: data) }

        try await withThrowingTaskGroup(of: Void.self) { group in
            // The web app first: a port that is taken ends the node with one line, before it says it listens.
            var webLines: [String] = []
            if let webApp { webLines = try await webApp.start(in: &group) }
            let server = try await ControlServer.start(
                service: service, socketPath: ControlClient.socketPath(dataDirectory: data))
            print("parley node \(identity.publicKey.hex) listening on \(transport.localAddress) (data \(data))")
            for line in webLines { print(line) }
            fflush(nil)
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

    /// The web app's server over the same dispatcher as the control socket, over TLS beyond loopback
    /// (see `WebScheme.serving`); the token file and the certificate are made on first use.
    func makeWebApp(_ text: String, service: APIService, logger: Logger) throws -> NodeWebApp {
        let requested = try WebAddress(parsing: text)
        let scheme = try WebScheme.serving(requested, forceTLS: webTLS, allowPlainHTTP: insecureHTTP)
        var notes: [String] = []
        let certificate =
            try scheme.isTLS ? WebCertificate.loadOrCreate(dataDirectory: data, host: requested.host) : nil
        switch certificate?.provenance {
        case .created?:
            notes.append(
                "web app: made a self-signed certificate, \(WebCertificate.certificatePath(dataDirectory: data))")
        case let .replaced(reason)?:
            notes.append(
                "web app: made a new self-signed certificate, \(WebCertificate.certificatePath(dataDirectory: data)): the old one could not serve (\(reason))"
            )
        case .reused?, nil: break
        }
        if !requested.isLoopback, !scheme.isTLS {
            FileHandle.standardError.write(
                Data(
                    """
                    warning: --insecure-http: the web app on \(requested) is plain HTTP, so login links, session cookies and every \
                    message the page shows cross the network readable by anyone on it, who can then act as this user.\n
                    """.utf8))
        }
        WebAddressFile.remove(dataDirectory: data)
        let access = try WebAccess(dataDirectory: data, nodeKey: service.node.me.hex)
        let (bound, listening) = AsyncStream<WebAddress>.makeStream()
        let data = data
        let server = try WebServer(
            service: service, access: access, address: requested, certificate: certificate, logger: logger
        ) { address in
            do {
                try WebAddressFile.write(address, fingerprint: certificate?.fingerprint, dataDirectory: data)
            } catch {
                logger.error("the web app's address file could not be written", metadata: ["error": "\(error)"])
            }
            listening.yield(address)
            listening.finish()
        }
        return NodeWebApp(
            server: server, bound: bound, listening: listening, notes: notes, fingerprint: certificate?.fingerprint,
            data: data)
    }
}

extension InvitePolicy: ExpressibleByArgument {}
