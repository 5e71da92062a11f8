import ParleyAPI
import ParleyCore

/// How a file reads in every terminal view (list, line mode, full screen): peers chose the names and
/// captions, so callers print these through `SafeText`.
enum FileLines {
    /// "🖼 beach.jpg (640×480, 88 KiB)" or "📎 report.pdf (1.2 MiB, application/pdf)".
    static func summary(_ file: FileView) -> String {
        let size = MessageText.byteCount(file.size)
        if file.picture, let width = file.width, let height = file.height {
            return "🖼 \(file.name) (\(width)×\(height), \(size))"
        }
        return "📎 \(file.name) (\(size), \(file.type))"
    }

    /// A message's text, and for a file its state: "📎 report.pdf (1.2 MiB) [not fetched: /save 7cd20bd7]".
    static func withState(_ message: MessageView) -> String {
        guard let file = message.file else { return message.text }
        let hint = file.state == "held" ? "" : ": /save \(file.id.prefix(8))"
        return "\(message.text) [\(state(file))\(hint)]"
    }

    /// "held", "fetching 45%" or "not fetched".
    static func state(_ file: FileView) -> String {
        switch file.state {
        case "held": "held"
        case "fetching": "fetching \(percent(file))%"
        default: "not fetched"
        }
    }

    static func percent(_ file: FileView) -> Int {
        file.size == 0 ? (file.state == "held" ? 100 : 0) : Int(Double(file.heldBytes) * 100 / Double(file.size))
    }

    /// One line of `parley files`: id, summary, state, who sent it, the caption.
    static func line(_ file: FileView) -> String {
        let from = file.authorName ?? String(file.author.prefix(8))
        let caption = file.caption.isEmpty ? "" : " — \(file.caption)"
        return "\(file.id.prefix(8))  \(summary(file))  [\(state(file))]  from \(from)\(caption)"
    }

    /// "[██████░░░░░░░░░░░░░░] 30%  12.0 MiB of 40.0 MiB  2 members" for a terminal's progress line.
    static func progressBar(_ file: FileView, width: Int = 24) -> String {
        let done = percent(file)
        let filled = min(width, done * width / 100)
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let sources =
            file.state == "held"
            ? ""
            : file.sources == 0
                ? "  waiting for a member holding it" : "  from \(file.sources) member\(file.sources == 1 ? "" : "s")"
        return
            "[\(bar)] \(String(done).leftPadded(to: 3))%  \(MessageText.byteCount(UInt64(max(0, file.heldBytes)))) of \(MessageText.byteCount(file.size))\(sources)"
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
