/// One terminal cell: a character and its style. The cell after a wide character holds `""`.
public struct Cell: Hashable, Sendable {
    public var text: String
    public var style: Style

    public init(_ text: String = " ", style: Style = .plain) {
        self.text = text
        self.style = style
    }

    public static let blank = Cell()
    var isContinuation: Bool { text.isEmpty }
}

/// A frame: `width × height` cells, row-major. Writes are clipped, never out of bounds.
public struct ScreenGrid: Hashable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]

    public init(width: Int, height: Int) {
        self.width = max(width, 0)
        self.height = max(height, 0)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    public subscript(row: Int, column: Int) -> Cell { cells[row * width + column] }

    /// Draws `text` from `column` on `row`, in at most `limit` columns (to the right edge by default).
    /// Returns the columns used; a wide character that would not fit whole is not drawn.
    @discardableResult
    public mutating func write(_ text: String, row: Int, column: Int, limit: Int? = nil, style: Style = .plain) -> Int {
        guard (0..<height).contains(row), column >= 0, column < width else { return 0 }
        let end = min(width, column + (limit ?? width))
        var at = column
        for character in text {
            let shown = TextWidth.printable(character)
            let columns = TextWidth.of(shown)
            guard at + columns <= end else { break }
            cells[row * width + at] = Cell(String(shown), style: style)
            if columns == 2 { cells[row * width + at + 1] = Cell("", style: style) }
            at += columns
        }
        return at - column
    }

    /// Writes styled spans one after another; returns the columns used.
    @discardableResult
    public mutating func write(_ line: StyledLine, row: Int, column: Int, limit: Int) -> Int {
        var used = 0
        for span in line.spans where used < limit {
            used += write(span.text, row: row, column: column + used, limit: limit - used, style: span.style)
        }
        return used
    }

    /// Paints `count` cells of `row` from `column` with spaces in `style`.
    public mutating func fill(row: Int, column: Int, count: Int, style: Style) {
        let (start, end) = (max(column, 0), min(width, column + count))
        guard (0..<height).contains(row), start < end else { return }
        for at in start..<end {
            cells[row * width + at] = Cell(" ", style: style)
        }
    }

    /// The frame as plain text, one line per row, without styles or trailing spaces (for snapshots).
    public var plainText: String {
        (0..<height).map { row in
            var line = ""
            for column in 0..<width { line += self[row, column].text }
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }.joined(separator: "\n")
    }
}

/// A line made of styled runs of text.
public struct StyledLine: Hashable, Sendable {
    public struct Span: Hashable, Sendable {
        public let text: String
        public let style: Style
    }

    public private(set) var spans: [Span] = []

    public init(_ text: String = "", style: Style = .plain) {
        if !text.isEmpty { spans = [Span(text: text, style: style)] }
    }

    public mutating func append(_ text: String, style: Style = .plain) {
        guard !text.isEmpty else { return }
        spans.append(Span(text: text, style: style))
    }

    public var text: String { spans.map(\.text).joined() }
    public var width: Int { TextWidth.of(text) }
}
