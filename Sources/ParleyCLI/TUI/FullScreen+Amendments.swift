import Foundation
import ParleyAPI
import ParleyControlSocket

/// The requests of `/hide`, `/thread`, `/edits` and `/pins` (and the pinned bar's refresh), whose
/// answers are not a posted message: run by the worker, answered as events.
extension FullScreen {
    enum AmendmentAction: Sendable {
        case hide(chat: String, message: String)
        case thread(chat: String, message: String)
        case edits(chat: String, message: String)
        /// `show`: the user asked (`/pins`), so all of them are listed; else only the pinned bar changes.
        case pins(chat: String, show: Bool)
        case search(chat: String, text: String)
        case mute(chat: String, on: Bool)
        case save(chat: String, file: String, folder: String?)
    }

    enum AmendmentEvent: Sendable {
        case hidden(DeletedForMeView)
        case thread(chat: String, ThreadView)
        case edits(chat: String, EditHistoryView)
        case pins(chat: String, [PinView], show: Bool)
        /// Lines the user asked for (a search's hits, what a mute did).
        case notice(chat: String, [String])
    }

    static func perform(_ action: AmendmentAction, options: NodeOptions) async throws -> AmendmentEvent {
        switch action {
        case let .hide(chat, message):
            return .hidden(
                try await ControlClient.callOnce(
                    .deleteForMe(chat: chat, message: message), options: options, as: DeletedForMeView.self))
        case let .thread(chat, message):
            return .thread(
                chat: chat,
                try await ControlClient.callOnce(
                    .thread(chat: chat, message: message), options: options, as: ThreadView.self))
        case let .edits(chat, message):
            return .edits(
                chat: chat,
                try await ControlClient.callOnce(
                    .edits(chat: chat, message: message), options: options, as: EditHistoryView.self))
        case let .pins(chat, show):
            return .pins(
                chat: chat, try await ControlClient.callOnce(.pins(chat: chat), options: options, as: [PinView].self),
                show: show)
        case let .search(chat, text):
            return .notice(chat: chat, try await searchLines(chat: chat, text: text, options: options))
        case let .mute(chat, on):
            return .notice(chat: chat, [try await muteLine(chat: chat, on: on, options: options)])
        case let .save(chat, file, folder):
            return .notice(chat: chat, [try await saveLine(chat: chat, file: file, folder: folder, options: options)])
        }
    }

    /// A search of one chat as lines: one line per hit, newest first.
    static func searchLines(chat: String, text: String, options: NodeOptions) async throws -> [String] {
        let found = try await ControlClient.callOnce(
            .search(text: text, chat: chat), options: options, as: SearchView.self)
        guard !found.hits.isEmpty else { return ["no message of this chat here has those words"] }
        return found.hits.map { Render.searchHit($0, chatName: nil) }
    }

    static func muteLine(chat: String, on: Bool, options: NodeOptions) async throws -> String {
        let view = try await ControlClient.callOnce(
            .chatMute(chat: chat, muted: on), options: options, as: ChatView.self)
        return view.muted ? "muted on this node: no notifications; nothing was sent" : "unmuted on this node"

    }

    /// `/save`: fetches the file if needed (up to two minutes), then copies it into the folder.
    static func saveLine(chat: String, file: String, folder: String?, options: NodeOptions) async throws -> String {
        let here = FileManager.default.currentDirectoryPath
        let target = folder.map { $0.hasPrefix("/") ? $0 : (here as NSString).appendingPathComponent($0) } ?? here
        let client = try await options.client()
        defer { Task { await client.close() } }
        var view = try await client.call(.fileFetch(chat: chat, file: file), as: FileView.self)
        let deadline = ContinuousClock.now + .seconds(120)
        while view.state != "held" {
            guard ContinuousClock.now < deadline else {
                return
                    "\(FileLines.summary(view)) is \(FileLines.state(view)) after 2 minutes; the node goes on: /save again later"
            }
            try await Task.sleep(for: .milliseconds(200))
            view = try await client.call(.file(chat: chat, file: file), as: FileView.self)
        }
        let saved = try await client.call(.fileSave(chat: chat, file: file, to: target), as: SavedFileView.self)
        return "saved \(FileLines.summary(saved.file)) to \(saved.path)"
    }
}
