public import Logging
public import ParleyAPI
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import NIOCore
import ParleyWebApp

/// The HTTP front end: the page, `POST /api/{request}` and the WebSocket `/api/ws`, all a thin adapter
/// over `APIService`, like the control socket. See docs/PROTOCOL.md §14.1 and docs/openapi.yaml.
public struct WebServer: Sendable {
    private let runApplication: @Sendable () async throws -> Void
    /// Where it listens, and whether over TLS (`scheme`): what cookies and links must follow.
    public let address: WebAddress
    /// Who may use it: the owner's requests (`parley web`) go here.
    public let access: WebAccess

    /// Builds the server; nothing listens until `run()`. With a `certificate` it speaks only TLS
    /// (HTTPS, and WebSockets as wss), else only plain HTTP. `onListening` gets the address really
    /// bound (port 0 resolved) once the server accepts connections.
    public init(
        service: APIService, access: WebAccess, address requested: WebAddress, certificate: WebCertificate? = nil,
        logger: Logger,
        onListening: @escaping @Sendable (WebAddress) async -> Void = { _ in }
    ) throws(WebError) {
        let address = WebAddress(
            host: requested.host, port: requested.port, scheme: certificate == nil ? .http : .https)
        let assets: WebAssetCatalog
        do { assets = try WebAssetCatalog.bundled() } catch { throw WebError(error.description) }
        // A fixed port is known now; port 0 only once bound, and nothing can reach it before that.
        let gate = RequestGuard(access: access, address: address.port == 0 ? nil : address)
        let router = Router(context: BasicRequestContext.self)
        let methods = RouteMethods(pagePaths: Set(["/", "/login"] + assets.paths))
        router.add(middleware: FrontDoorMiddleware(gate: gate, methods: methods, logger: logger))
        PageRoutes(assets: assets, gate: gate, logger: logger).add(to: router)
        APIRoutes(service: service).add(to: router)
        FileRoutes(service: service).add(to: router)

        let socket = WatchSocket(service: service, logger: logger)
        let plain = HTTPServerBuilder { responder in
            let upgrading = HTTP1WebSocketUpgradeChannel(
                responder: responder, configuration: .init(ws: .init(maxFrameSize: WatchSocket.maxFrameBytes))
            ) { head, _, _ in
                // RefusedUpgradeFilter already made a refused handshake a plain request (answered by the
                // router's front door); the check is repeated here so no path upgrades without it.
                guard head.path == "/api/ws", gate.refusal(for: head) == nil else { return .dontUpgrade }
                var headers = WebResponses.securityHeaders
                if RequestGuard.offersPageProtocol(head) {
                    headers[.secWebSocketProtocol] = RequestGuard.webSocketProtocol
                }
                // A socket opened with a session closes when that session ends (logout, revoke), one
                // opened with the token at a revoke.
                let session = gate.session(of: head), bearer = session == nil ? gate.bearer(of: head) : nil
                return .upgrade(headers) { inbound, outbound, _ in
                    await access.whileLive(session, bearer: bearer) {
                        await socket.run(inbound: inbound, outbound: outbound)
                    }
                }
            }
            return GuardedWebSocketChannel(upgrading: upgrading, gate: gate)
        }
        // TLS is the outermost handler: the guard and the WebSocket upgrade see decrypted requests.
        var server = plain
        if let certificate {
            do { server = try .tls(plain, tlsConfiguration: try certificate.serverConfiguration()) } catch {
                throw WebError("cannot use the web app's TLS certificate: \(error)")
            }
        }
        // Hummingbird reports each connection still open at shutdown as an error; that is no news
        // to anyone, so below debug level only its critical messages are kept.
        var serverLogger = logger
        if logger.logLevel > .debug { serverLogger.logLevel = .critical }
        let application = Application(
            router: router, server: server,
            configuration: ApplicationConfiguration(
                address: .hostname(address.host, port: address.port), serverName: nil),
            onServerRunning: { channel in
                let bound = WebAddress(
                    host: address.host, port: channel.localAddress?.port ?? address.port, scheme: address.scheme)
                gate.serve(bound)
                await onListening(bound)
            },
            logger: serverLogger)
        runApplication = { try await application.run() }
        self.address = address
        self.access = access
    }

    /// Serves until the task is cancelled; a failure to listen (the port is taken) says where and why
    /// in one line.
    public func run() async throws {
        do {
            try await runApplication()
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw WebError.cannotListen(on: address, error)
        }
    }
}
