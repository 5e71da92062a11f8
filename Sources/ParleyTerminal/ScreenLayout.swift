/// Where each part of the screen goes for a terminal size. From 80 columns everything shows;
/// narrower, the member pane goes first, then the chat pane. Shorter than 6 rows, the header and
/// the typing line go.
public struct ScreenLayout: Hashable, Sendable {
    /// Columns `start..<start+width`, rows `top..<top+height`.
    public struct Pane: Hashable, Sendable {
        public let column: Int
        public let width: Int
        public let top: Int
        public let height: Int
    }

    public let width: Int
    public let height: Int
    public let headerRow: Int?
    public let chats: Pane?
    public let messages: Pane
    public let members: Pane?
    public let typingRow: Int?
    public let statusRow: Int?
    public let inputRow: Int?

    public init(width: Int, height: Int) {
        let width = max(width, 0), height = max(height, 0)
        self.width = width
        self.height = height
        let full = height >= 6
        headerRow = full ? 0 : nil
        inputRow = height >= 1 ? height - 1 : nil
        statusRow = height >= 2 ? height - 2 : nil
        typingRow = full ? height - 3 : nil
        let top = full ? 1 : 0
        let bodyHeight = max(height - (full ? 4 : 2), 0)
        let (chatWidth, memberWidth) =
            switch width {
            case 100...: (22, 20)
            case 80...: (18, 16)
            case 60...: (18, 0)
            default: (0, 0)
            }
        chats = chatWidth > 0 ? Pane(column: 0, width: chatWidth, top: top, height: bodyHeight) : nil
        members =
            memberWidth > 0 ? Pane(column: width - memberWidth, width: memberWidth, top: top, height: bodyHeight) : nil
        let messageColumn = chatWidth > 0 ? chatWidth + 1 : 0
        let messageEnd = memberWidth > 0 ? width - memberWidth - 1 : width
        messages = Pane(column: messageColumn, width: max(messageEnd - messageColumn, 0), top: top, height: bodyHeight)
    }
}
