import ParleyAPI
import Synchronization

/// What line mode has printed, shared by the event printer and the command reader: the oldest
/// message in history order (where `/older` pages back from), and every message and poll by id, to
/// quote what a reply answers.
final class ShownMessages: Sendable {
    private struct Held {
        var oldest: MessageView?
        /// Id → (author as shown, text): what a quote of it says.
        var quotable: [String: (author: String, text: String)] = [:]
    }

    private let held = Mutex(Held())

    var oldest: MessageView? { held.withLock { $0.oldest } }

    /// Notes `message` and returns what to print for it: its line, under the quote of the message it replies to.
    func lines(for message: MessageView) -> String {
        held.withLock { held in
            if held.oldest.map({ message.historyOrder < $0.historyOrder }) ?? true { held.oldest = message }
            held.quotable[message.id] = (Render.name(message.author, message.authorName), message.text)
            guard let replied = Render.repliedTo(message) else { return Render.line(message) }
            let quoted = held.quotable[replied]
            return "  " + Render.quote(author: quoted?.author, text: quoted?.text, id: replied) + "\n"
                + Render.line(message)
        }
    }

    /// A poll can be replied to as well; its question is what a quote shows.
    func note(_ poll: PollResultsView) {
        held.withLock { $0.quotable[poll.id] = (Render.name(poll.author, poll.authorName), Render.pollQuote(poll)) }
    }
}
