/// Which colours the terminal gets.
public enum ColorMode: Hashable, Sendable {
    case none
    case sixteen
    case palette256

    /// No colour when `NO_COLOR` is set and not empty (no-color.org) or `TERM` is `dumb`;
    /// 256 colours when `TERM` or `COLORTERM` says so; 16 otherwise.
    public static func detect(environment: [String: String]) -> ColorMode {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .none }
        let term = environment["TERM"] ?? ""
        if term == "dumb" { return .none }
        if term.contains("256color") || ["truecolor", "24bit"].contains(environment["COLORTERM"] ?? "") {
            return .palette256
        }
        return .sixteen
    }
}

/// Turns frames into ANSI output, sending only the cells that changed since the last frame.
public struct FrameWriter: Sendable {
    public let colors: ColorMode
    private var previous: ScreenGrid?
    private var previousCursor: Position?

    public init(colors: ColorMode) { self.colors = colors }

    /// Forgets the last frame, so the next one is drawn whole (after a resize or a redraw request).
    public mutating func invalidate() {
        previous = nil
        previousCursor = nil
    }

    /// The bytes that take the terminal from the last frame to this one; empty when nothing changed.
    public mutating func output(for grid: ScreenGrid, cursor: Position?) -> String {
        var out = ""
        let full = previous.map { $0.width != grid.width || $0.height != grid.height } ?? true
        if full { out += "\u{1B}[0m\u{1B}[2J" }
        var current: Style?
        for row in 0..<grid.height {
            var column = 0
            var at: Int? // where the terminal cursor is on this row, after our last write
            while column < grid.width {
                let cell = grid[row, column]
                guard full || cell != previous?[row, column] || isWideNeighbour(grid, row, column) else {
                    column += 1
                    continue
                }
                // A changed continuation cell is redrawn through the wide character before it.
                let start = cell.isContinuation && column > 0 ? column - 1 : column
                let lead = grid[row, start]
                if at != start { out += "\u{1B}[\(row + 1);\(start + 1)H" }
                if current != lead.style {
                    out += sgr(lead.style)
                    current = lead.style
                }
                out += lead.isContinuation ? " " : lead.text
                let width = lead.isContinuation ? 1 : TextWidth.of(lead.text)
                column = start + max(width, 1)
                at = column
            }
        }
        if current != nil { out += "\u{1B}[0m" }
        if full || cursor != previousCursor || (!out.isEmpty && cursor != nil) {
            if let cursor {
                out += "\u{1B}[\(cursor.row + 1);\(cursor.column + 1)H\u{1B}[?25h"
            } else {
                out += "\u{1B}[?25l"
            }
        }
        previous = grid
        previousCursor = cursor
        return out
    }

    /// A wide character whose continuation changed must be rewritten too.
    private func isWideNeighbour(_ grid: ScreenGrid, _ row: Int, _ column: Int) -> Bool {
        column + 1 < grid.width && grid[row, column + 1].isContinuation
            && grid[row, column + 1] != previous?[row, column + 1]
    }

    /// Select Graphic Rendition: a reset, then the style's attributes and colours.
    func sgr(_ style: Style) -> String {
        var codes = ["0"]
        if style.bold { codes.append("1") }
        if style.dim { codes.append("2") }
        if style.underline { codes.append("4") }
        if style.reverse { codes.append("7") }
        if let foreground = style.foreground { codes += parameters(foreground, base: 30) }
        if let background = style.background { codes += parameters(background, base: 40) }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }

    private func parameters(_ color: TerminalColor, base: Int) -> [String] {
        switch colors {
        case .none: return []
        case .palette256 where color.index >= 16: return ["\(base + 8)", "5", "\(color.index)"]
        case .sixteen, .palette256:
            let index = Int(color.standard)
            return [index < 8 ? "\(base + index)" : "\(base + 60 + index - 8)"]
        }
    }
}
