import ParleyAPI
import ParleyControlSocket

extension Open {
    /// `/hide`, `/thread`, `/edits` and `/pins` in line mode: what they answer, printed.
    func showAmendment(_ command: SlashCommand.Amendment) async throws -> [String] {
        switch command {
        case let .hide(message):
            let hidden = try await ControlClient.callOnce(
                .deleteForMe(chat: chat, message: message), options: options, as: DeletedForMeView.self)
            return ["hidden \(hidden.message.prefix(ChatScreen.idLength)) here; nothing was sent"]
        case let .thread(message):
            let thread = try await ControlClient.callOnce(
                .thread(chat: chat, message: message), options: options, as: ThreadView.self)
            return Render.thread(thread)
        case let .edits(message):
            return AmendmentLines.edits(
                try await ControlClient.callOnce(
                    .edits(chat: chat, message: message), options: options, as: EditHistoryView.self))
        case .pins:
            return AmendmentLines.pins(
                try await ControlClient.callOnce(.pins(chat: chat), options: options, as: [PinView].self),
                name: Render.name)
        case let .search(text): return try await FullScreen.searchLines(chat: chat, text: text, options: options)
        case let .mute(on): return [try await FullScreen.muteLine(chat: chat, on: on, options: options)]
        case let .save(file, folder):
            return [try await FullScreen.saveLine(chat: chat, file: file, folder: folder, options: options)]
        case .back:
            throw CLIError("/back leaves a thread on the full screen; here /thread prints it once")
        }
    }
}
