/// One request on the control socket: a JSON object on one line, e.g.
/// `{"send":{"chat":"3f2a","text":"hi","refs":[]}}`. See docs/PROTOCOL.md §Control socket.
///
/// Peers, chats and messages are given as the user typed them (names, titles, hex prefixes);
/// the node resolves them.
public enum ControlRequest: Codable, Sendable, Hashable {
    case status
    case contactsAdd(peer: String, name: String, address: String?)
    case contactsList
    case chatCreate(title: String, members: [String])
    case chatList
    case send(chat: String, text: String, tag: String?, refs: [String])
    case messages(chat: String, tag: String?, ref: String?, refTag: String?, limit: Int?)
    case pollCreate(chat: String, question: String)
    case pollVote(chat: String, poll: String, choice: String)
    case pollResults(chat: String, poll: String)
    case localGet(message: String, key: String)
    case localSet(message: String, key: String, value: String)
    /// Streams `WatchEvent` lines for a chat until the client hangs up.
    case watch(chat: String)
}

/// One response line: `{"ok":true,"result":…}` or `{"ok":false,"error":"…"}`.
public struct ControlResponse<Result: Codable & Sendable>: Codable, Sendable {
    public let ok: Bool
    public let result: Result?
    public let error: String?

    public static func success(_ result: Result) -> Self { Self(ok: true, result: result, error: nil) }
    public static func failure(_ message: String) -> Self { Self(ok: false, result: nil, error: message) }
}

/// A line of a `watch` stream.
public struct WatchEvent: Codable, Sendable {
    public let message: MessageView?
    public let poll: PollResultsView?

    public init(message: MessageView? = nil, poll: PollResultsView? = nil) {
        self.message = message
        self.poll = poll
    }
}
