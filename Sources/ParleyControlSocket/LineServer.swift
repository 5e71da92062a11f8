import NIOCore
public import NIOPosix
import Synchronization

/// The node's local control socket: a Unix-domain stream socket speaking newline-delimited lines.
///
/// `start` binds the socket (owner-only, mode 0600) and `run()` serves it, calling the handler for each
/// connection concurrently, until `close()` or cancellation. Stopping closes every open connection.
/// A connection is closed when its handler returns.
public final class LineServer: Sendable {
    public typealias Handler = @Sendable (LineConnection) async -> Void

    public let path: String

    private enum State { case ready, running, finished }

    private let serverChannel: NIOAsyncChannel<LineConnection, Never>
    /// Every accepted connection, including any still queued for `run()`, so stopping can close them.
    private let connections: ChannelRegistry
    private let socketFile: SocketFile
    private let handler: Handler
    private let state = Mutex(State.ready)

    private init(
        path: String,
        serverChannel: NIOAsyncChannel<LineConnection, Never>,
        connections: ChannelRegistry,
        socketFile: SocketFile,
        handler: @escaping Handler
    ) {
        self.path = path
        self.serverChannel = serverChannel
        self.connections = connections
        self.socketFile = socketFile
        self.handler = handler
    }

    /// Binds the socket at `path`, first removing a stale socket file nobody listens on. Fails if
    /// another server is listening there, or if something other than a socket is in the way.
    public static func start(
        path: String,
        eventLoopGroup: MultiThreadedEventLoopGroup = .singleton,
        handler: @escaping Handler
    ) async throws(ControlSocketError) -> LineServer {
        switch SocketFile.kind(of: path) {
        case .missing:
            break
        case .other:
            throw .cannotListen(on: path, reason: "a file that is not a socket is in the way")
        case .socket:
            if await isListening(path, eventLoopGroup: eventLoopGroup) {
                throw .cannotListen(on: path, reason: "another process is already listening there")
            }
            try SocketFile.unlinkStale(path)
        }

        let connections = ChannelRegistry()
        let serverChannel: NIOAsyncChannel<LineConnection, Never>
        RestrictiveUmask.enter()
        do {
            // Connections are not wrapped in `NIOAsyncChannel`: NIO traps when one is dropped unserved,
            // as happens to connections still queued when a server stops (swift-nio#2637).
            serverChannel = try await ServerBootstrap(group: eventLoopGroup)
                // A client may shut down its sending side and still wait for the answer.
                .childChannelOption(.allowRemoteHalfClosure, value: true)
                .bind(unixDomainSocketPath: path) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        connections.add(channel)
                        return try LineConnection.configure(
                            channel, maxInbound: NewlineFrameDecoder.requestLimit,
                            maxOutbound: NewlineFrameDecoder.responseLimit)
                    }
                }
        } catch {
            RestrictiveUmask.leave()
            throw .cannotListen(on: path, reason: ControlSocketError.reason(for: error))
        }
        RestrictiveUmask.leave()

        let socketFile: SocketFile
        do {
            socketFile = try SocketFile(securing: path)
        } catch {
            try? await serverChannel.channel.close()
            connections.closeAll()
            throw error
        }
        return LineServer(
            path: path,
            serverChannel: serverChannel,
            connections: connections,
            socketFile: socketFile,
            handler: handler
        )
    }

    /// Serves connections until `close()` is called or the task is cancelled, then returns. Can be
    /// called once.
    public func run() async throws {
        let canRun = state.withLock { state in
            guard state == .ready else { return false }
            state = .running
            return true
        }
        guard canRun else { throw ControlSocketError.alreadyRunning }
        defer { finish() }

        let handler = self.handler
        do {
            try await withThrowingDiscardingTaskGroup { group in
                try await serverChannel.executeThenClose { accepted in
                    for try await connection in accepted {
                        group.addTask {
                            await handler(connection)
                            await connection.close()
                        }
                    }
                }
                // No more connections are coming: stop the ones still open.
                group.cancelAll()
            }
        } catch is CancellationError {
            // Cancellation is how a supervisor stops the server; it is not a failure.
        }
    }

    /// Stops accepting, closes open connections, ends `run()`, and removes the socket file.
    public func close() async {
        try? await serverChannel.channel.close()
        finish()
    }

    private func finish() {
        state.withLock { $0 = .finished }
        connections.closeAll()
        socketFile.remove()
    }

    /// Whether a live server accepts connections at `path`; a refused connection means a stale file.
    private static func isListening(_ path: String, eventLoopGroup: MultiThreadedEventLoopGroup) async -> Bool {
        guard
            let channel = try? await ClientBootstrap(group: eventLoopGroup)
                .connectTimeout(.seconds(2))
                .connect(unixDomainSocketPath: path).get()
        else { return false }
        try? await channel.close()
        return true
    }
}
