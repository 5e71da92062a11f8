import ParleyAPI
import ParleyTerminal

/// Edits, deletions and threads as text (pins and edit histories: `AmendmentLines`).
extension Render {
    /// What amends a message, after its line: " (edited)", " 📌 by NAME", " [2 replies]".
    static func amendmentMarks(_ message: MessageView) -> String {
        var marks = ""
        if let file = message.file { marks += " [\(FileLines.state(file))]" }
        if message.edits > 0 { marks += " (edited)" }
        if let pinner = message.pinnedBy { marks += " 📌 by \(name(pinner.id, pinner.name))" }
        if message.replyCount > 0 { marks += " [\(message.replyCount) repl\(message.replyCount == 1 ? "y" : "ies")]" }
        return marks
    }

    /// A deleted message's line: who deleted it when it was not its author (the chat's creator).
    static func tombstone(_ message: MessageView) -> String {
        guard let deleter = message.deletedBy, deleter.id != message.author else { return "(message deleted)" }
        return "(message deleted by \(name(deleter.id, deleter.name)))"
    }

    /// The root's line, then each reply's, indented with "↳".
    static func thread(_ thread: ThreadView) -> [String] {
        [line(thread.root)] + thread.replies.map { "  ↳ " + line($0) }
    }
}
