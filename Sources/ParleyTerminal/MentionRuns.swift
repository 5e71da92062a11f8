/// A message line's text in runs: the "@name" mentions in their own style, the rest in the text's.
enum MentionRuns {
    static let mention = Style(foreground: .brightCyan, bold: true)

    /// Appends `text` to `line`, each occurrence of one of `mentions` (the longest first where two
    /// start at the same place) styled as a mention. A mention that wrapping cut across two lines
    /// shows in the text's style.
    static func append(_ text: String, mentions: [String], style: Style, to line: inout StyledLine) {
        let candidates = mentions.filter { !$0.isEmpty }.sorted { $0.count > $1.count }
        var rest = Substring(text)
        while !candidates.isEmpty {
            let hits = candidates.compactMap { rest.firstRange(of: $0) }
            guard let first = hits.min(by: { $0.lowerBound < $1.lowerBound }) else { break }
            line.append(String(rest[..<first.lowerBound]), style: style)
            line.append(String(rest[first]), style: mention)
            rest = rest[first.upperBound...]
        }
        line.append(String(rest), style: style)
    }
}
