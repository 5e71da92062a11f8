/// A terminal colour: 0–15 are the standard and bright colours, 16–255 the 256-colour palette.
public struct TerminalColor: Hashable, Sendable {
    public let index: UInt8

    public init(_ index: UInt8) { self.index = index }

    public static let black = TerminalColor(0)
    public static let red = TerminalColor(1)
    public static let green = TerminalColor(2)
    public static let yellow = TerminalColor(3)
    public static let blue = TerminalColor(4)
    public static let magenta = TerminalColor(5)
    public static let cyan = TerminalColor(6)
    public static let white = TerminalColor(7)
    public static let gray = TerminalColor(8)
    public static let brightGreen = TerminalColor(10)
    public static let brightYellow = TerminalColor(11)
    public static let brightBlue = TerminalColor(12)
    public static let brightMagenta = TerminalColor(13)
    public static let brightCyan = TerminalColor(14)

    /// The nearest of the 16 standard colours, for terminals without the 256-colour palette.
    var standard: UInt8 {
        switch index {
        case 0..<16: return index
        case 232...255: return index < 244 ? 8 : 7
        default:
            // The 6×6×6 cube: each channel 0…5; a bright colour when any channel is high.
            let cube = Int(index) - 16
            let (r, g, b) = (cube / 36, cube / 6 % 6, cube % 6)
            let bits = UInt8((r >= 3 ? 1 : 0) | (g >= 3 ? 2 : 0) | (b >= 3 ? 4 : 0))
            return max(r, g, b) >= 4 ? bits + 8 : bits
        }
    }
}

/// How a cell is drawn. Colours are dropped by the writer when colour is off; attributes stay.
public struct Style: Hashable, Sendable {
    public var foreground: TerminalColor?
    public var background: TerminalColor?
    public var bold = false
    public var dim = false
    public var reverse = false
    public var underline = false

    public init(
        foreground: TerminalColor? = nil, background: TerminalColor? = nil,
        bold: Bool = false, dim: Bool = false, reverse: Bool = false, underline: Bool = false
    ) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
    }

    public static let plain = Style()
}
