import Synchronization
import Foundation
import ParleyCore
import ParleyStore

/// Erasing what a deletion for everyone removes (PROTOCOL.md §13d): the target's text and its edits'
/// leave the store's searchable content, whichever of the deletion and the target arrived first.
extension Node {
    /// Looks at a stored batch (own or received): the targets of its deletions, its messages that an
    /// earlier deletion named, and its edits of deleted messages: one index probe per deletable
    /// message, and reads only where a deletion is involved.
    func eraseDeleted(in batch: [Message]) async throws {
        var erase: [MessageID] = []
        for (chat, messages) in Dictionary(grouping: batch, by: \.chat) {
            var candidates = Set(
                messages.compactMap { message -> MessageID? in
                    switch message.tag {
                    case .delete: AmendmentTarget.of(message, tag: .delete)
                    case .edit: AmendmentTarget.of(message, tag: .edit)
                    default: nil
                    }
                })
            let deletable = messages.filter { DeleteRules.deletableTags.contains($0.tag) }.map(\.id)
            candidates.formUnion(try store.deletionTargets(chat: chat, among: deletable))
            guard !candidates.isEmpty else { continue }
            let held = try candidates.compactMap { try store.message($0) }.filter { $0.message.chat == chat }
            for (target, found) in try amendments(of: held, chat: chat) where found.deletion != nil {
                let edits = try store.messages(matching: MessageCriteria(chat: chat, tag: .edit, referencing: target))
                erase += [target] + edits.map(\.message.id)
            }
        }
        try await store.eraseContent(of: erase)
        try await discardFileBytes(of: erase)
    }

    /// A file deleted for everyone leaves this node's disk too, and any fetch of it stops.
    private func discardFileBytes(of ids: [MessageID]) async throws {
        guard let directory = configuration.files.directory else { return }
        for id in ids where try store.heldFile(id) != nil {
            transfers.state.withLock { _ = $0.fetches.removeValue(forKey: id) }
            for suffix in ["", ".part", ".have"] {
                try? FileManager.default.removeItem(atPath: heldPath(id, in: directory) + suffix)
            }
            try await store.forgetFile(id)
        }
    }
}
