/// The rule tags and reaction types share: 1 to `maxBytes` bytes of UTF-8, no control characters.
enum ShortWord {
    static func validate(_ text: String, as what: String, maxBytes: Int) throws(CoreError) {
        let count = text.utf8.count
        guard count > 0 else { throw .invalid("a \(what) cannot be empty") }
        guard count <= maxBytes else { throw .tooLarge(what, limit: maxBytes, actual: count) }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalid("a \(what) cannot contain control characters")
        }
    }
}
