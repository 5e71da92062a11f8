import ParleyAPI

/// A message and its replies as the full screen shows them in place of the chat (`/thread`), kept
/// up to date from the chat's watch stream: an amended root or reply is replaced by id, a new reply added.
struct ThreadPanel {
    private(set) var root: MessageView
    private var replies: [String: MessageView]

    init(_ thread: ThreadView) {
        root = thread.root
        replies = Dictionary(thread.replies.map { ($0.id, $0) }, uniquingKeysWith: { _, latest in latest })
    }

    /// The root, then its replies in history order.
    var messages: [MessageView] { [root] + replies.values.sorted { $0.historyOrder < $1.historyOrder } }

    mutating func apply(_ message: MessageView) {
        if message.id == root.id {
            root = message
        } else if replies[message.id] != nil
            || message.references.contains(where: { $0.id == root.id && $0.tag == root.tag })
        {
            replies[message.id] = message
        }
    }

    mutating func remove(_ id: String) { replies[id] = nil }
}
