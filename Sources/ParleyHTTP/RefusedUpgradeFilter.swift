import HTTPTypes
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Makes a WebSocket handshake the front door refuses (no token, a foreign Host or Origin) an
/// ordinary request before the upgrade handler sees it, so the router answers it like any other:
/// 401 or 403 with the JSON error. Left alone, hummingbird-websocket would answer a refused
/// upgrade with a bare 400 and close.
final class RefusedUpgradeFilter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let gate: RequestGuard

    init(gate: RequestGuard) {
        self.gate = gate
    }

    /// Only a connection's first request can upgrade (the upgrade handler leaves after it, and so
    /// does this filter: after an upgrade, WebSocket bytes, not HTTP parts, come this way).
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case var .head(head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        if head.headers.contains(name: "upgrade"),
            (try? HTTPRequest(head, secure: false, splitCookie: false)).map({ gate.refusal(for: $0) != nil }) ?? true
        {
            // Without these it asks for nothing but the route itself.
            head.headers.remove(name: "upgrade")
            head.headers.remove(name: "connection")
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

/// hummingbird-websocket's HTTP/1 channel with `RefusedUpgradeFilter` between the request decoder
/// and the upgrade handler.
struct GuardedWebSocketChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value

    let upgrading: HTTP1WebSocketUpgradeChannel
    let gate: RequestGuard

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        upgrading.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(RefusedUpgradeFilter(gate: gate), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await upgrading.handle(value: value, logger: logger)
    }
}
