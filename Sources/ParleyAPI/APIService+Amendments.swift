import ParleyNode
import ParleyCore
import ParleyCrypto
import ParleyStore

/// Edits, deletions, pins and threads on the control socket (PROTOCOL.md §13d).
extension APIService {
    func handleAmendments(_ request: APIRequest) async throws -> APIResult {
        switch request {
        case let .edit(chat, message, text):
            let (chatID, target) = try resolveMessage(chat, message)
            return Self.ok(view(try await node.edit(chat: chatID, message: target, text: text), names: try names()))
        case let .delete(chat, message):
            let (chatID, target) = try resolveMessage(chat, message)
            return Self.ok(view(try await node.deleteForEveryone(chat: chatID, message: target), names: try names()))
        case let .deleteForMe(chat, message):
            let (chatID, target) = try resolveMessage(chat, message)
            try await node.deleteForMe(chat: chatID, message: target)
            return Self.ok(DeletedForMeView(chat: chatID.hex, message: target.hex))
        case let .pin(chat, message, pinned):
            let (chatID, target) = try resolveMessage(chat, message)
            let stored = try await node.pin(chat: chatID, message: target, pinned: pinned ?? true)
            return Self.ok(view(stored, names: try names()))
        case let .pins(chat):
            let chatID = try resolveChat(chat)
            let names = try names()
            return Self.ok(
                try node.pins(chat: chatID).map { pinned in
                    PinView(
                        message: view(pinned.message, names: names, amendments: pinned.amendments),
                        pinnedBy: MemberView(id: pinned.pin.author.hex, name: names[pinned.pin.author]),
                        pinnedAtMillis: pinned.pin.timestampMillis)
                })
        case let .thread(chat, message):
            let (chatID, target) = try resolveMessage(chat, message)
            let thread = try node.thread(chat: chatID, message: target)
            let names = try names()
            func shown(_ stored: StoredMessage) -> MessageView {
                view(stored, names: names, amendments: thread.amendments[stored.message.id] ?? .none)
            }
            return Self.ok(ThreadView(root: shown(thread.root), replies: thread.replies.map(shown)))
        case let .edits(chat, message):
            let (chatID, target) = try resolveMessage(chat, message)
            guard let stored = try node.message(target) else {
                throw NodeError.notFound("no message \(target.shortHex)")
            }
            let amendments = try node.amendments(of: [stored], chat: chatID)[target] ?? .none
            let names = try names()
            let current = view(stored, names: names, amendments: amendments)
            guard current.deletedBy == nil else { throw NodeError.invalid("message \(target.shortHex) was deleted") }
            let original = view(stored, names: names)
            let versions =
                [EditVersionView(id: original.id, text: original.text, timestampMillis: stored.message.timestampMillis)]
                + amendments.edits.map { edit in
                    EditVersionView(
                        id: edit.id.hex, text: Mentions.rendered(edit.text) { names[$0] ?? String($0.hex.prefix(8)) },
                        timestampMillis: edit.timestampMillis)
                }
            return Self.ok(EditHistoryView(message: current, versions: versions))
        default: throw NodeError.invalid("not an edit, deletion, pin or thread request")
        }
    }
}
