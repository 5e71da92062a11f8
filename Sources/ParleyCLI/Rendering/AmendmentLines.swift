import ParleyAPI
import ParleyTerminal

/// The pins and an edit history as lines, for the full screen's notices and line mode alike; every
/// peer-written text on one line, so it cannot pose as another.
enum AmendmentLines {
    /// "📌 1a2b3c4d alice: text — pinned by bob", the latest pin first.
    static func pins(_ pins: [PinView], name: (String, String?) -> String) -> [String] {
        guard !pins.isEmpty else { return ["no pinned messages"] }
        return pins.map { pin in
            "📌 \(pin.message.id.prefix(ChatScreen.idLength)) \(name(pin.message.author, pin.message.authorName)): "
                + "\(shownText(pin.message)) — pinned by \(name(pin.pinnedBy.id, pin.pinnedBy.name))"
        }
    }

    /// "edits of 1a2b3c4d:", then "original 14:02: text" and "edit 1 14:05: text".
    static func edits(_ history: EditHistoryView) -> [String] {
        ["edits of \(history.message.id.prefix(ChatScreen.idLength)):"]
            + history.versions.enumerated().map { index, version in
                "  \(index == 0 ? "original" : "edit \(index)") \(ChatScreen.clockTime(version.timestampMillis)): "
                    + SafeText.singleLine(version.text)
            }
    }

    /// A message's text as a line shows it: a deleted one as its tombstone.
    static func shownText(_ message: MessageView) -> String {
        message.deletedBy == nil ? SafeText.singleLine(message.text) : "message deleted"
    }
}
