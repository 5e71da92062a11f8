import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import ParleyAPI
import Synchronization

/// One page's WebSocket (`GET /api/ws`): the page says which chats it shows, the server streams
/// each one's watch events (`APIService.stream(.watch(chat:))`), tagged with the chat.
///
/// Page → server, text frames: `{"watch":{"chat":"<id>"}}` starts (or restarts, with the backlog
/// again) a chat's stream, `{"unwatch":{"chat":"<id>"}}` stops it. `"marksRead":false` in a watch
/// leaves the read marker alone: the page marks what was on its screen with `read`.
/// Server → page: `{"chat":"<id>","event":<watch event>}`, `{"chat":"<id>","error":{"kind","message"}}`
/// when a chat cannot be watched (its stream ends), and `{"error":{"kind","message"}}` for a frame
/// that is no command. `<id>` is the chat exactly as the page wrote it. A command over
/// `maxCommandBytes` gets that error frame naming the limit, then a close with 1009 (message too big).
struct WatchSocket: Sendable {
    /// Each watch holds a store subscription and a task: a page shows one chat at a time, so this is plenty.
    static let maxWatches = 32
    /// Commands are a few dozen bytes: a larger one is no command, and ends the connection.
    static let maxCommandBytes = 4_096
    /// What the socket reads before judging a command: larger than any command, so a too-large one is
    /// read and answered with an error frame rather than cut off by the frame decoder. Past this the
    /// decoder closes the connection with 1009 by itself.
    static let maxFrameBytes = 65_536

    let service: APIService
    let logger: Logger

    /// What the page may send.
    enum Command: Decodable {
        case watch(chat: String, marksRead: Bool?)
        case unwatch(chat: String)
    }

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        let watches = WatchSet()
        do {
            for try await message in inbound.messages(maxSize: Self.maxFrameBytes) {
                let size =
                    switch message {
                    case let .text(text): text.utf8.count
                    case let .binary(bytes): bytes.readableBytes
                    }
                if size > Self.maxCommandBytes {
                    try await outbound.write(.text(Self.oversizedFrame(bytes: size)))
                    try await outbound.close(.messageTooLarge, reason: "command over \(Self.maxCommandBytes) bytes")
                    break
                }
                guard case let .text(text) = message, let command = try? APIJSON.decode(Command.self, from: text) else {
                    try await outbound.write(
                        .text(
                            WebResponses.errorBody(
                                kind: WebErrorKind.invalid.rawValue,
                                message: #"expected {"watch":{"chat":"ID"}} or {"unwatch":{"chat":"ID"}}"#)))
                    continue
                }
                switch command {
                case let .watch(chat, marksRead):
                    try await start(chat, marksRead: marksRead ?? true, in: watches, outbound: outbound)
                case let .unwatch(chat): watches.stop(chat)
                }
            }
        } catch {
            // The page went away or sent a frame past the decoder's limit: either way this socket is done.
            logger.debug("web socket closed", metadata: ["error": "\(type(of: error))"])
        }
        await watches.stopAll()
    }

    /// The error frame before the close that answers a command over the limit.
    static func oversizedFrame(bytes: Int) -> String {
        WebResponses.errorBody(
            kind: WebErrorKind.invalid.rawValue,
            message: "a command is at most \(maxCommandBytes) bytes; this one has \(bytes): the connection closes")
    }

    private func start(_ chat: String, marksRead: Bool, in watches: WatchSet, outbound: WebSocketOutboundWriter)
        async throws
    {
        let started = watches.start(chat, limit: Self.maxWatches) { generation in
            Task { [service, logger] in
                do {
                    try await service.watch(chat: chat, marksRead: marksRead) { line in
                        try await outbound.write(.text(Self.eventFrame(chat: chat, event: line)))
                    }
                } catch is CancellationError {
                    // unwatched, or the socket closed
                } catch {
                    let failure = APIFailure(error)
                    logger.debug("watch ended", metadata: ["kind": "\(failure.kind)"])
                    try? await outbound.write(.text(Self.errorFrame(chat: chat, failure: failure)))
                }
                watches.finished(chat, generation: generation)
            }
        }
        if !started {
            let failure = APIFailure(
                kind: .invalid,
                message: "at most \(Self.maxWatches) chats are watched at once on one socket: unwatch one first")
            try await outbound.write(.text(Self.errorFrame(chat: chat, failure: failure)))
        }
    }

    /// `{"chat":…,"event":…}`: the event line is already JSON, and is spliced in unchanged.
    static func eventFrame(chat: String, event: String) -> String {
        "{\"chat\":\(jsonString(chat)),\"event\":\(event)}"
    }

    static func errorFrame(chat: String, failure: APIFailure) -> String {
        "{\"chat\":\(jsonString(chat)),\"error\":{\"kind\":\(jsonString(failure.kind.rawValue)),\"message\":\(jsonString(failure.message))}}"
    }

    static func jsonString(_ text: String) -> String {
        (try? APIJSON.encode(text)) ?? "\"\""
    }
}

/// The running watches of one socket, by chat. A restarted watch gets a new generation, so the end
/// of the task it replaced does not remove it.
final class WatchSet: Sendable {
    private struct Watch {
        let generation: UInt64
        let task: Task<Void, Never>
    }

    private struct State {
        var watches: [String: Watch] = [:]
        var nextGeneration: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Starts `makeTask`'s watch for `chat`, replacing a running one; false (nothing started) at the limit.
    func start(_ chat: String, limit: Int, makeTask: (UInt64) -> Task<Void, Never>) -> Bool {
        let replaced: Task<Void, Never>?
        do {
            replaced = try state.withLock { state throws(WatchLimitReached) -> Task<Void, Never>? in
                guard state.watches[chat] != nil || state.watches.count < limit else { throw WatchLimitReached() }
                state.nextGeneration += 1
                let previous = state.watches[chat]?.task
                state.watches[chat] = Watch(generation: state.nextGeneration, task: makeTask(state.nextGeneration))
                return previous
            }
        } catch {
            return false
        }
        replaced?.cancel()
        return true
    }

    func stop(_ chat: String) {
        state.withLock { $0.watches.removeValue(forKey: chat) }?.task.cancel()
    }

    func finished(_ chat: String, generation: UInt64) {
        state.withLock { state in
            if state.watches[chat]?.generation == generation { state.watches.removeValue(forKey: chat) }
        }
    }

    /// Cancels every watch and waits for each to end, so nothing writes to a closed socket afterwards.
    func stopAll() async {
        let tasks = state.withLock { state in
            defer { state.watches.removeAll() }
            return state.watches.values.map(\.task)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    var count: Int { state.withLock { $0.watches.count } }

    private struct WatchLimitReached: Error {}
}
