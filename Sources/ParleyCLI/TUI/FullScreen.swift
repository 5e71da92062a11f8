import Foundation
import ParleyAPI
import ParleyTerminal
import ParleyControlSocket
#if canImport(Glibc)
    import Glibc
#endif

/// `parley open` on a terminal: chat list, messages with live polls, members, typing line and an
/// input line, redrawn as events arrive. Child tasks read keys, signals, the watch stream and a
/// refresh tick, and run requests one after another; they all feed one event stream, which this
/// loop alone applies to the `ChatScreen` and draws.
struct FullScreen {
    let chat: String
    let options: NodeOptions

    enum Event: Sendable {
        case input(TerminalInput.Chunk)
        case inputEnded
        case signal(Int32)
        case watch(chat: String, line: String)
        case watchEnded(chat: String, reason: String)
        case chats([ChatView])
        case members(chat: String, [MemberPresenceView])
        case older(chat: String, [MessageView])
        /// The latest page again: own messages' delivery state, which the watch does not stream.
        case latest(chat: String, [MessageView])
        /// A poll's results; `show` when the user asked for them (`/results`), else only its card is updated.
        case results(chat: String, PollResultsView, show: Bool)
        /// A request went through. For a text sent to `chat`, `notice` says which of its members
        /// nothing reaches (nil: none); other posts carry no chat. `done` says what a slash command did.
        case posted(chat: String?, notice: String?, done: String?)
        case failed(String)
        case tick
        case amended(AmendmentEvent)
    }

    /// Requests, run in order by one worker so the screen never waits on the node.
    enum Action: Sendable {
        case post(APIRequest)
        case results(chat: String, poll: String, show: Bool)
        case older(chat: String, APIRequest)
        case latest(chat: String)
        case refresh(chat: String)
        case typing(chat: String, active: Bool)
        case amendment(AmendmentAction)
    }

    func run() async throws {
        // Fail before taking over the terminal when the node or the chat is not there.
        let chats = try await ControlClient.callOnce(.chatList, options: options, as: [ChatView].self)
        let id = try NodeRequests.resolve(chat, in: chats)
        let me = try? await ControlClient.callOnce(.status, options: options, as: StatusView.self).peer
        var screen = ChatScreen(chat: id)
        screen.me = me
        screen.updateChats(chats)
        screen.open(id)

        let terminal = Terminal()
        try terminal.enter()
        defer { terminal.restore() }
        var session = Session(
            screen: screen,
            writer: FrameWriter(colors: ColorMode.detect(environment: ProcessInfo.processInfo.environment)))

        let (events, sink) = AsyncStream<Event>.makeStream()
        let (actions, worker) = AsyncStream<Action>.makeStream()
        let (selections, selector) = AsyncStream<String>.makeStream()
        session.worker = worker
        session.selector = selector
        selector.yield(id)
        worker.yield(.refresh(chat: id))
        worker.yield(.amendment(.pins(chat: id, show: false)))
        let options = options
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await chunk in TerminalInput.chunks() { sink.yield(.input(chunk)) }
                sink.yield(.inputEnded)
            }
            group.addTask { await TerminalSignals.forward { sink.yield(.signal($0)) } }
            group.addTask { await Self.watch(selections, options: options, events: sink) }
            group.addTask { await Self.work(actions, options: options, events: sink) }
            group.addTask {
                while (try? await Task.sleep(for: .seconds(2))) != nil { sink.yield(.tick) }
            }
            session.draw()
            for await event in events {
                guard session.handle(event) else { break }
                session.draw()
            }
            worker.finish()
            selector.finish()
            group.cancelAll()
        }
    }

    /// Follows the selected chat's watch stream; a new selection replaces the stream.
    static func watch(_ selections: AsyncStream<String>, options: NodeOptions, events: AsyncStream<Event>.Continuation)
        async
    {
        var iterator = selections.makeAsyncIterator()
        var next = await iterator.next()
        while let chat = next {
            next = await withTaskGroup(of: Void.self, returning: String?.self) { group in
                group.addTask { await follow(chat, options: options, events: events) }
                let selection = await iterator.next()
                group.cancelAll()
                return selection
            }
        }
    }

    private static func follow(_ chat: String, options: NodeOptions, events: AsyncStream<Event>.Continuation) async {
        do {
            let client = try await options.client()
            try await client.connection.send(try APIJSON.encode(APIRequest.watch(chat: chat)))
            for try await line in client.connection.lines { events.yield(.watch(chat: chat, line: line)) }
            await client.close()
            if !Task.isCancelled { events.yield(.watchEnded(chat: chat, reason: "the node closed the connection")) }
        } catch {
            if !Task.isCancelled { events.yield(.watchEnded(chat: chat, reason: "\(error)")) }
        }
    }

    /// Runs the requests in order.
    static func work(_ actions: AsyncStream<Action>, options: NodeOptions, events: AsyncStream<Event>.Continuation)
        async
    {
        for await action in actions {
            do {
                switch action {
                case let .post(request) where request.isVote:
                    let vote = try await ControlClient.callOnce(request, options: options, as: VoteView.self)
                    events.yield(.posted(chat: nil, notice: nil, done: Done.vote(vote, request: request)))
                case let .post(request):
                    let posted = try await ControlClient.callOnce(request, options: options, as: Posted.self)
                    let done = Done.inChat(request, id: posted.id)
                    if case let .send(chat, _, _, _) = request {
                        events.yield(.posted(chat: chat, notice: Render.noRoute(posted.noRoute ?? []), done: done))
                    } else {
                        events.yield(.posted(chat: nil, notice: nil, done: done))
                    }
                case let .results(chat, poll, show):
                    let results = try await ControlClient.callOnce(
                        .pollResults(chat: chat, poll: poll), options: options, as: PollResultsView.self)
                    events.yield(.results(chat: chat, results, show: show))
                case let .older(chat, request):
                    events.yield(
                        .older(
                            chat: chat,
                            try await ControlClient.callOnce(request, options: options, as: [MessageView].self)))
                case let .latest(chat):
                    let page = try await ControlClient.callOnce(
                        NodeRequests.olderMessages(chat: chat, oldest: nil), options: options, as: [MessageView].self)
                    events.yield(.latest(chat: chat, page))
                case let .refresh(chat):
                    events.yield(
                        .chats(try await ControlClient.callOnce(.chatList, options: options, as: [ChatView].self)))
                    events.yield(
                        .members(
                            chat: chat,
                            try await ControlClient.callOnce(
                                .members(chat: chat), options: options, as: [MemberPresenceView].self)))
                case let .typing(chat, active):
                    _ = try await ControlClient.callOnce(
                        .typing(chat: chat, active: active), options: options, as: TypingSentView.self)
                case let .amendment(action):
                    events.yield(.amended(try await perform(action, options: options)))
                }
            } catch {
                events.yield(.failed("\(error)"))
            }
        }
    }
}
