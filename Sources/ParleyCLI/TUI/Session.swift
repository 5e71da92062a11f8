import Foundation
import ParleyAPI
import ParleyTerminal
#if canImport(Glibc)
    import Glibc
#endif

extension FullScreen {
    /// The screen's state and what the keys do to it; owned by the event loop alone.
    struct Session {
        var screen: ChatScreen
        var writer: FrameWriter
        var decoder = KeyDecoder()
        var size = Terminal.size()
        var worker: AsyncStream<Action>.Continuation?
        var selector: AsyncStream<String>.Continuation?
        var last: RenderedScreen?
        var loadingOlder = false
        /// When the node was last told this user is typing; nil when it was told they stopped.
        var typingSince: ContinuousClock.Instant?

        init(screen: ChatScreen, writer: FrameWriter) {
            self.screen = screen
            self.writer = writer
        }

        mutating func draw() {
            let rendered = ScreenRenderer.render(screen.state, width: size.width, height: size.height)
            screen.scroll = rendered.scroll
            last = rendered
            Terminal.write(writer.output(for: rendered.grid, cursor: rendered.cursor))
        }

        /// Applies one event; false ends the session.
        mutating func handle(_ event: Event) -> Bool {
            switch event {
            case let .input(.bytes(bytes)):
                return pressAll(decoder.decode(bytes))
            case .input(.idle):
                return pressAll(decoder.flush())
            case .inputEnded:
                return false
            case let .signal(number):
                guard number == SIGWINCH else { return false }
                size = Terminal.size()
                writer.invalidate()
            case let .watch(chat, line):
                guard chat == screen.chat else { break }
                do { apply(try WatchEvent.decodeLine(line)) } catch let failure as CLIError {
                    screen.status = .init(failure.description, isError: true)
                } catch {
                    screen.status = .init("could not read an event from the node", isError: true)
                }
            case let .watchEnded(chat, reason):
                if chat == screen.chat { screen.status = .init("watch ended: \(reason)", isError: true) }
            case let .chats(list):
                screen.updateChats(list)
            case let .members(chat, list):
                if chat == screen.chat { screen.updateMembers(list) }
            case let .older(chat, list):
                loadingOlder = false
                guard chat == screen.chat else { break }
                // A short page is the chat's start (a page of polls alone adds no message, yet is not the start).
                if list.count < NodeRequests.pageSize { screen.reachedStart = true }
                merge(list)
            case let .latest(chat, list):
                if chat == screen.chat { merge(list) }
            case let .results(chat, poll, show):
                guard chat == screen.chat else { break }
                screen.apply(WatchEvent(poll: poll))
                if show {
                    screen.thread = nil
                    // The full card as `parley poll results` prints it (voters, phase, own ballot), one renderer for
                    // both; its details lose their two-space indent, which the notice's edge replaces in a narrow pane.
                    screen.addNotice(
                        Render.poll(poll).split(separator: "\n").map {
                            $0.hasPrefix("  ") ? String($0.dropFirst(2)) : String($0)
                        })
                    screen.scroll = 0
                }
            case let .posted(chat, notice, done):
                if let chat, chat == screen.chat {
                    // A text sent here says whether its members are reachable: the note is set, or
                    // cleared once no longer true (and an earlier error with it); a reply says it went.
                    screen.status = (notice ?? done).map { .init($0, isError: false) }
                } else if let done {
                    // A slash command says what it did (typed text shows in the chat itself).
                    screen.status = .init(done, isError: false)
                } else if screen.status?.isError == true {
                    screen.status = nil
                }
            case let .failed(message):
                loadingOlder = false
                screen.status = .init(message, isError: true)
            case let .amended(event):
                handle(event)
            case .tick:
                worker?.yield(.refresh(chat: screen.chat))
                if screen.awaitsReceipts { worker?.yield(.latest(chat: screen.chat)) }
                // Paused for 2–5 s with text still in the input.
                if let since = typingSince, ContinuousClock.now - since > .seconds(5) { stopTyping() }
            }
            return true
        }

        /// Keys in order, stopping at one that ends the session (false).
        private mutating func pressAll(_ keys: [Key]) -> Bool {
            for key in keys {
                guard press(key) else { return false }
            }
            return true
        }

        /// One key; false ends the session.
        private mutating func press(_ key: Key) -> Bool {
            switch key {
            case .control("c"):
                stopTyping()
                return false
            case .control("d") where screen.input.isEmpty:
                return false
            case .control("l"):
                writer.invalidate()
            case .tab, .control("n"):
                switchChat(by: 1)
            case .backTab, .control("p"):
                switchChat(by: -1)
            case .escape where screen.thread != nil:
                closeThread()
            case .escape:
                screen.focus = screen.focus == .input ? .chats : .input
                screen.highlighted = screen.openIndex ?? 0
            case .pageUp:
                scroll(by: max((last?.messageRows ?? 2) - 1, 1))
            case .pageDown:
                scroll(by: -max((last?.messageRows ?? 2) - 1, 1))
            default:
                return screen.focus == .chats ? pressInChats(key) : pressInInput(key)
            }
            return true
        }

        private mutating func pressInChats(_ key: Key) -> Bool {
            switch key {
            case .up: screen.highlighted = max(screen.highlighted - 1, 0)
            case .down: screen.highlighted = min(screen.highlighted + 1, max(screen.chats.count - 1, 0))
            case .enter:
                screen.focus = .input
                if screen.chats.indices.contains(screen.highlighted) { open(screen.chats[screen.highlighted].id) }
            case .character:
                screen.focus = .input
                return pressInInput(key)
            default: break
            }
            return true
        }

        private mutating func pressInInput(_ key: Key) -> Bool {
            switch key {
            case let .character(character):
                screen.input.insert(character)
                startTyping()
            case .backspace, .control("h"): screen.input.deleteBackward()
            case .delete, .control("d"): screen.input.deleteForward()
            case .left, .control("b"): screen.input.moveLeft()
            case .right, .control("f"): screen.input.moveRight()
            case .home, .control("a"): screen.input.moveHome()
            case .end, .control("e"): screen.input.moveEnd()
            case .control("u"): _ = screen.input.take()
            case .up: scroll(by: 1)
            case .down: scroll(by: -1)
            case .enter: return submit()
            default: break
            }
            if screen.input.isEmpty { stopTyping() }
            return true
        }

        private mutating func submit() -> Bool {
            let line = screen.input.take()
            stopTyping()
            do {
                switch try SlashCommand.parse(line, chat: screen.chat) {
                case nil: break
                case .quit: return false
                case let .post(request):
                    screen.scroll = 0
                    worker?.yield(.post(inThread(request)))
                case let .results(poll):
                    worker?.yield(.results(chat: screen.chat, poll: poll, show: true))
                case .older:
                    scroll(by: max(last?.messageRows ?? 10, 1))
                case let .amendment(command):
                    try amend(command)
                case let .reactToLatest(type, remove):
                    guard let latest = screen.latestMessageID else { throw CLIError("no message to react to yet") }
                    worker?.yield(
                        .post(
                            remove
                                ? .unreact(chat: screen.chat, message: latest, type: type)
                                : .react(chat: screen.chat, message: latest, type: type)))
                }
            } catch {
                screen.status = .init("\(error)", isError: true)
            }
            return true
        }

        /// Merges a page of messages, and asks for the cards of the polls in it not held yet.
        private mutating func merge(_ page: [MessageView]) {
            for poll in screen.merge(page) { worker?.yield(.results(chat: screen.chat, poll: poll, show: false)) }
        }

        private mutating func scroll(by lines: Int) {
            screen.scroll = max(screen.scroll + lines, 0)
            guard lines > 0, !screen.reachedStart, !loadingOlder, let last,
                last.messageLines - screen.scroll <= last.messageRows
            else { return }
            loadingOlder = true
            worker?.yield(
                .older(
                    chat: screen.chat,
                    NodeRequests.olderMessages(
                        chat: screen.chat, oldest: screen.oldestLoaded)))
        }

        private mutating func switchChat(by step: Int) {
            guard !screen.chats.isEmpty else { return }
            let current = screen.openIndex ?? 0
            let next = (current + step + screen.chats.count) % screen.chats.count
            screen.focus = .input
            open(screen.chats[next].id)
        }

        private mutating func open(_ id: String) {
            guard id != screen.chat else { return }
            stopTyping()
            screen.open(id)
            screen.status = nil
            loadingOlder = false
            selector?.yield(id)
            worker?.yield(.refresh(chat: id))
            worker?.yield(.amendment(.pins(chat: id, show: false)))
        }

        /// Tells the node at most every 3 s while typing text (not commands).
        private mutating func startTyping() {
            guard !screen.input.text.hasPrefix("/") else { return }
            let now = ContinuousClock.now
            if let since = typingSince, now - since < .seconds(3) { return }
            typingSince = now
            worker?.yield(.typing(chat: screen.chat, active: true))
        }

        private mutating func stopTyping() {
            guard typingSince != nil else { return }
            typingSince = nil
            worker?.yield(.typing(chat: screen.chat, active: false))
        }
    }
}
