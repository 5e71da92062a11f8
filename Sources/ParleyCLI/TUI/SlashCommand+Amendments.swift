import ParleyAPI
import ParleyCrypto

/// Edits, deletions, pins and threads as slash commands (PROTOCOL.md §13d), each naming a message
/// by the id prefix shown before it, as `/reply` and `/react` do.
extension SlashCommand {
    enum Amendment: Equatable {
        /// Hides the message from this user's views on this node (`deleteForMe`): nothing is sent.
        case hide(message: String)
        /// Shows the message and its replies (on the full screen in place of the chat, until `/back`).
        case thread(message: String)
        /// Leaves a thread for the whole chat again.
        case back
        /// The message's versions, the original first.
        case edits(message: String)
        /// Every pinned message, the latest pin first.
        case pins
        /// Full-text search of this chat on this node (`search`): the hits as a notice.
        case search(text: String)
        /// Mutes (`on`) or unmutes the chat on this node (`chatMute`).
        case mute(on: Bool)
        /// Fetches a file (if not held) and saves a copy into `folder` (default: the current one).
        case save(file: String, folder: String?)
    }

    static func parseAmendment(_ name: Name, words: [String], chat: String) throws -> SlashCommand {
        let usage = CLIError("usage: \(name.usage)")
        if name == .pins || name == .back {
            guard words.count == 1 else { throw usage }
            return .amendment(name == .pins ? .pins : .back)
        }
        guard words.count >= 2 else { throw usage }
        let message = words[1]
        guard Hex.isHexPrefix(message) else {
            throw CLIError("'\(message)' is not a message id prefix; usage: \(name.usage)")
        }
        switch name {
        case .edit:
            guard words.count >= 3 else { throw usage }
            return .post(.edit(chat: chat, message: message, text: words.dropFirst(2).joined(separator: " ")))
        case .delete:
            // "--for-me" is /hide: the one deletion that sends nothing.
            guard words.count == 2 || (words.count == 3 && words[2] == "--for-me") else { throw usage }
            return words.count == 3 ? .amendment(.hide(message: message)) : .post(.delete(chat: chat, message: message))
        case .pin, .unpin:
            guard words.count == 2 else { throw usage }
            return .post(.pin(chat: chat, message: message, pinned: name == .pin))
        case .hide, .thread, .edits:
            guard words.count == 2 else { throw usage }
            return .amendment(
                name == .hide
                    ? .hide(message: message) : name == .thread ? .thread(message: message) : .edits(message: message))
        default: throw usage
        }
    }
}
