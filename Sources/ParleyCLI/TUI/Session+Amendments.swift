import ParleyAPI
import ParleyTerminal

/// `/hide`, `/thread`, `/back`, `/edits`, `/pins`, and the pinned bar kept current.
extension FullScreen.Session {
    /// A watch event applied; a pin, an unpin or a change to a pinned message asks for the pins again.
    mutating func apply(_ event: WatchEvent) {
        let pinsChanged = event.message.map(screen.changesPins) ?? false
        screen.apply(event)
        if pinsChanged { worker?.yield(.amendment(.pins(chat: screen.chat, show: false))) }
    }

    mutating func amend(_ command: SlashCommand.Amendment) throws {
        let chat = screen.chat
        switch command {
        case let .hide(message): worker?.yield(.amendment(.hide(chat: chat, message: message)))
        case let .thread(message): worker?.yield(.amendment(.thread(chat: chat, message: message)))
        case let .edits(message): worker?.yield(.amendment(.edits(chat: chat, message: message)))
        case .pins: worker?.yield(.amendment(.pins(chat: chat, show: true)))
        case let .search(text): worker?.yield(.amendment(.search(chat: chat, text: text)))
        case let .mute(on): worker?.yield(.amendment(.mute(chat: chat, on: on)))
        case let .save(file, folder):
            screen.status = .init("fetching \(file)…")
            worker?.yield(.amendment(.save(chat: chat, file: file, folder: folder)))
        case .back:
            guard screen.thread != nil else { throw CLIError("no thread is open: /back leaves one (/thread MESSAGE)") }
            closeThread()
        }
    }

    /// Text typed while a thread is open replies to its root, as the thread is what the user reads.
    func inThread(_ request: APIRequest) -> APIRequest {
        guard let root = screen.thread?.root, case let .send(chat, text, nil, refs) = request, refs?.isEmpty ?? true
        else { return request }
        return .send(chat: chat, text: text, tag: nil, refs: [root.id])
    }

    mutating func closeThread() {
        screen.thread = nil
        screen.scroll = 0
        screen.status = nil
    }

    mutating func handle(_ event: FullScreen.AmendmentEvent) {
        switch event {
        case let .hidden(hidden):
            guard hidden.chat == screen.chat else { return }
            screen.hide(hidden.message)
            screen.status = .init("hidden \(hidden.message.prefix(ChatScreen.idLength)) here; nothing was sent")
        case let .thread(chat, thread):
            guard chat == screen.chat else { return }
            screen.thread = ThreadPanel(thread)
            screen.scroll = 0
            screen.status = nil
        case let .edits(chat, history):
            guard chat == screen.chat else { return }
            showNotice(AmendmentLines.edits(history))
        case let .pins(chat, pins, show):
            guard chat == screen.chat else { return }
            screen.pins = pins
            if show { showNotice(AmendmentLines.pins(pins, name: screen.name)) }
        case let .notice(chat, lines):
            guard chat == screen.chat else { return }
            showNotice(lines)
        }
    }

    /// Lines the user asked for, after the newest entry of the chat (a thread gives way to them).
    private mutating func showNotice(_ lines: [String]) {
        screen.thread = nil
        screen.addNotice(lines)
        screen.scroll = 0
    }
}
