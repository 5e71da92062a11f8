import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// A WebSocket client whose handshake is a browser's: `Host` and `Origin` of the page (http://host:port),
/// the session cookie, and the session's proof among the offered subprotocols. Frames are read and written as they are, so a test sees every one.
struct BrowserLikeWebSocket {
    enum Failure: Error { case notUpgraded }

    private enum Upgrade: Sendable {
        case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case refused
    }

    /// Connects to `ws://host:port/api/ws` and runs `body` with the open socket; throws `notUpgraded`
    /// when the server answers the handshake with anything but 101.
    static func connect<Result: Sendable>(
        port: Int, host: String, origin: String?, cookie: String?, proof: String? = nil, bearer: String? = nil,
        body: (NIOAsyncChannelInboundStream<WebSocketFrame>, NIOAsyncChannelOutboundWriter<WebSocketFrame>) async throws
            -> Result
    ) async throws -> Result {
        var headers = HTTPHeaders([("Host", host)])
        if let origin { headers.add(name: "Origin", value: origin) }
        if let cookie { headers.add(name: "Cookie", value: cookie) }
        if let proof { headers.add(name: "Sec-WebSocket-Protocol", value: "parley, parley-session.\(proof)") }
        if let bearer { headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/api/ws", headers: headers)
        let upgrade = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(maxFrameSize: 1 << 22) { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            .websocket(
                                try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(
                                    wrappingChannelSynchronously: channel))
                        }
                    }
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration(
                        upgradeRequestHead: head, upgraders: [upgrader],
                        notUpgradingCompletionHandler: { $0.eventLoop.makeSucceededFuture(.refused) })
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: .init(upgradeConfiguration: configuration))
                }
            }
        guard case let .websocket(channel) = try await upgrade.get() else { throw Failure.notUpgraded }
        return try await channel.executeThenClose { inbound, outbound in try await body(inbound, outbound) }
    }

    /// A client text frame (clients mask every frame; the encoder applies the key).
    static func text(_ string: String) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: string))
    }
}
