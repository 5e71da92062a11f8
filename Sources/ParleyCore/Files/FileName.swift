/// File names as peers see them (PROTOCOL.md §13e): a name from a manifest is written to disks and shown
/// on terminals and pages, so it carries no path, no control or bidirectional-override characters and
/// no leading dot, and fits a file system's 255 bytes.
public enum FileName {
    public static let maxBytes = 255
    /// What an empty or wholly removed name becomes.
    public static let fallback = "file"

    /// The name with path separators, control, format and bidi characters removed, leading dots and
    /// spaces dropped, trailing spaces and dots trimmed, and cut to `maxBytes` keeping its extension.
    public static func sanitized(_ raw: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in raw.unicodeScalars where isKept(scalar) { scalars.append(scalar) }
        var name = String(scalars)
        while let first = name.first, first == "." || first == " " { name.removeFirst() }
        while let last = name.last, last == "." || last == " " { name.removeLast() }
        name = fitted(name)
        return name.isEmpty ? fallback : name
    }

    /// Whether a manifest's name is already in its sanitised form: a node refuses any other, so every
    /// node shows and saves the same name.
    public static func isSanitized(_ name: String) -> Bool { sanitized(name) == name }

    private static func isKept(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "/" || scalar == "\\" || scalar == ":" { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
            return false // the format category holds every bidi override, isolate and mark
        default: return true
        }
    }

    /// Cuts at a character boundary; a short extension (up to 16 bytes) survives the cut.
    private static func fitted(_ name: String) -> String {
        guard name.utf8.count > maxBytes else { return name }
        var ext = ""
        if let dot = name.lastIndex(of: "."), name.utf8.distance(from: dot, to: name.endIndex) <= 16 {
            ext = String(name[dot...])
        }
        var stem = ext.isEmpty ? name : String(name[..<name.lastIndex(of: ".")!])
        while stem.utf8.count + ext.utf8.count > maxBytes { stem.removeLast() }
        return stem + ext
    }
}
