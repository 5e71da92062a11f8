/// An author's avatar on a terminal: the initial of their name on a colour derived from their peer
/// id, so a member keeps one colour on every screen and across renames, and two members who share
/// an initial or a name are still told apart.
public enum Avatar {
    /// Mid-bright colours of the 256-colour cube, each readable under a black initial and distinct
    /// from its neighbours; terminals without the cube get the nearest standard colour (`TerminalColor.standard`).
    static let palette: [TerminalColor] = [
        33, 37, 41, 70, 75, 99, 135, 139, 166, 172, 178, 203, 209, 213,
    ].map(TerminalColor.init)

    /// The colour of the peer whose id is `peer` (hex, as the views give it): its first 8 hex digits
    /// pick the palette entry, as the id is a public key's random bytes. Anything else (an empty or
    /// malformed id) is hashed, so the function is total and deterministic.
    public static func color(forPeer peer: String) -> TerminalColor {
        let value =
            UInt32(peer.prefix(8), radix: 16)
            ?? peer.unicodeScalars.reduce(UInt32(2_166_136_261)) { ($0 ^ $1.value) &* 16_777_619 }
        return palette[Int(value % UInt32(palette.count))]
    }

    /// The first letter of `name`, upper-cased, as it may be drawn ("?" for an empty name).
    public static func initial(of name: String) -> String {
        guard let first = name.first else { return "?" }
        return String(TextWidth.printable(Character(String(first).uppercased())))
    }

    /// The initial as one styled run: black on the peer's colour.
    static func span(name: String, peer: String) -> (text: String, style: Style) {
        (initial(of: name), Style(foreground: .black, background: color(forPeer: peer), bold: true))
    }
}
