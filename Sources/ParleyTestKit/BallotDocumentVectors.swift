import Foundation
import ParleyCrypto

/// docs/BALLOTS.md §7's block of `name = hex` lines (long values continue on indented lines): the
/// vectors the independent Python implementation wrote, which the Swift tests must reproduce.
public enum BallotDocumentVectors {
    public static let values: [String: [UInt8]] = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let marker = "```text\n"
        guard let text = try? String(contentsOf: root.appendingPathComponent("docs/BALLOTS.md"), encoding: .utf8),
            let section = text.range(of: "## 7. Test vectors"),
            let open = text.range(of: marker + "alice seed = ", range: section.upperBound..<text.endIndex),
            case let start = text.index(open.lowerBound, offsetBy: marker.count),
            let close = text.range(of: "```", range: start..<text.endIndex)
        else { return [:] }
        var values: [String: String] = [:]
        var last = ""
        for line in text[start..<close.lowerBound].split(separator: "\n") {
            if line.hasPrefix("    ") {
                values[last, default: ""] += line.dropFirst(4)
            } else if let equals = line.range(of: " = ") {
                last = String(line[..<equals.lowerBound])
                values[last] = String(line[equals.upperBound...])
            }
        }
        return values.compactMapValues { try? Hex.decode($0) }
    }()
}
