/// File names as peers see them (PROTOCOL.md §13e): a name from a manifest is written to disks and shown
/// on terminals and pages, so it carries no path, no control or bidirectional-override characters and
/// no leading dot, and fits a file system's 255 bytes.
///
/// Every step works on Unicode scalars, never on grapheme clusters: whether a manifest's name is in
/// sanitised form is a rule every node must decide alike, and cluster boundaries move between Unicode
/// versions (a dot followed by a combining mark is one cluster, yet its first byte still makes a dot file).
public enum FileName {
    public static let maxBytes = 255
    /// What an empty or wholly removed name becomes.
    public static let fallback = "file"
    /// An extension up to this many bytes, its dot included, survives the cut to `maxBytes`.
    public static let maxExtensionBytes = 16

    /// The name with path separators, control, format and bidi characters removed, leading and trailing
    /// dots and spaces dropped, and cut to `maxBytes` keeping its extension. Idempotent:
    /// `sanitized(sanitized(x)) == sanitized(x)`.
    public static func sanitized(_ raw: String) -> String {
        let kept: [Unicode.Scalar] = raw.unicodeScalars.filter(isKept)
        // Trimmed again after the cut: a cut stem can end in a dot or a space, or vanish before the extension.
        let name = trimmed(fitted(trimmed(kept[...])))
        return name.isEmpty ? fallback : String(String.UnicodeScalarView(name))
    }

    /// Whether a manifest's name is already in its sanitised form, scalar for scalar: a node refuses
    /// any other, so every node shows and saves the same name.
    public static func isSanitized(_ name: String) -> Bool {
        sanitized(name).unicodeScalars.elementsEqual(name.unicodeScalars)
    }

    private static func isKept(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "/" || scalar == "\\" || scalar == ":" { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
            return false // the format category holds every bidi override, isolate and mark
        default: return true
        }
    }

    private static func trimmed(_ scalars: ArraySlice<Unicode.Scalar>) -> ArraySlice<Unicode.Scalar> {
        var scalars = scalars
        while let first = scalars.first, first == "." || first == " " { scalars.removeFirst() }
        while let last = scalars.last, last == "." || last == " " { scalars.removeLast() }
        return scalars
    }

    /// Cuts whole scalars off the stem until the name fits; a short extension survives the cut.
    private static func fitted(_ scalars: ArraySlice<Unicode.Scalar>) -> ArraySlice<Unicode.Scalar> {
        var size = byteCount(scalars)
        guard size > maxBytes else { return scalars }
        var ext = scalars[scalars.endIndex...]
        if let dot = scalars.lastIndex(of: "."), byteCount(scalars[dot...]) <= maxExtensionBytes {
            ext = scalars[dot...]
        }
        var stem = scalars[..<ext.startIndex]
        size -= byteCount(ext)
        while size > maxBytes - byteCount(ext), let last = stem.popLast() { size -= UTF8.width(last) }
        return stem + ext
    }

    private static func byteCount(_ scalars: ArraySlice<Unicode.Scalar>) -> Int {
        scalars.reduce(0) { $0 + UTF8.width($1) }
    }
}
