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
    }

    enum AmendmentEvent: Sendable {
        case hidden(DeletedForMeView)
        case thread(chat: String, ThreadView)
        case edits(chat: String, EditHistoryView)
        case pins(chat: String, [PinView], show: Bool)
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
        }
    }
}
