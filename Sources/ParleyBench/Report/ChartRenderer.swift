import Foundation

/// Draws the targeted figures as an SVG (hand-written text): one bar per figure showing how far it is
/// from its target on a log scale. The centre line is the target; bars to the right beat it (green),
/// bars to the left miss it (red). The limits each figure is measured against are listed below, with
/// the ratio of those read against another limit (a pipeline limit against the verify rate).
enum ChartRenderer {
    static let width = 960.0
    static let labelWidth = 380.0
    static let rowHeight = 34.0
    static let top = 70.0
    /// Decades shown on each side of the target.
    static let decades = 2.0

    static func write(_ report: Report, to path: String) throws {
        try Output.write(Data(svg(report).utf8), to: path)
    }

    static func svg(_ report: Report) -> String {
        let targeted = report.figures.filter(\.isTargeted)
        let limits = report.figures.filter { !$0.isTargeted }
        let plotLeft = labelWidth
        let plotWidth = width - labelWidth - 30
        let centre = plotLeft + plotWidth / 2
        let plotBottom = top + rowHeight * Double(targeted.count)
        let height = plotBottom + 50 + 18 * Double(limits.count) + 20

        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif" font-size="13">
            <rect width="100%" height="100%" fill="white"/>
            <text x="20" y="28" font-size="18" font-weight="bold">parley-bench (\(escape(report.mode)) run): each figure against its target</text>
            <text x="20" y="50" fill="#555">Bar = how far past (right, green) or short of (left, red) the target, log scale; \
            \(report.figures.compactMap(\.met).count { $0 }) of \(targeted.count) targets met.</text>

            """
        for tick in stride(from: -decades, through: decades, by: 1) {
            let x = centre + tick / decades * plotWidth / 2
            let label =
                tick == 0 ? "target" : tick > 0 ? "\(Int(pow(10, tick)))× better" : "\(Int(pow(10, -tick)))× short"
            out +=
                "<line x1=\"\(f(x))\" y1=\"\(f(top - 8))\" x2=\"\(f(x))\" y2=\"\(f(plotBottom))\" "
                + "stroke=\"\(tick == 0 ? "#222" : "#ddd")\" stroke-width=\"\(tick == 0 ? 2 : 1)\"/>\n"
            out +=
                "<text x=\"\(f(x))\" y=\"\(f(plotBottom + 16))\" text-anchor=\"middle\" fill=\"#555\" font-size=\"11\">\(label)</text>\n"
        }
        for (index, figure) in targeted.enumerated() {
            guard let ratio = figure.ratio, let goal = figure.goal else { continue }
            let score = Self.score(ratio, goal)
            let clamped = max(-decades, min(decades, log10(max(score, 1e-9))))
            let x = centre + clamped / decades * plotWidth / 2
            let y = top + rowHeight * Double(index)
            let colour = figure.met == true ? "#2e9d4a" : "#d0453a"
            out += "<text x=\"20\" y=\"\(f(y + 21))\">\(escape(figure.name))</text>\n"
            out +=
                "<rect x=\"\(f(min(centre, x)))\" y=\"\(f(y + 8))\" width=\"\(f(max(1, abs(x - centre))))\" height=\"18\" fill=\"\(colour)\"/>\n"
            let anchor = x >= centre ? "start" : "end"
            let labelX = x >= centre ? x + 6 : x - 6
            let text = "\(Figure.format(figure.value)) \(figure.unit) = \(Figure.format(ratio))× (\(goal.text))"
            out +=
                "<text x=\"\(f(labelX))\" y=\"\(f(y + 21))\" text-anchor=\"\(anchor)\" font-size=\"11\">\(escape(text))</text>\n"
        }
        var y = plotBottom + 44
        out += "<text x=\"20\" y=\"\(f(y))\" font-weight=\"bold\">Limits measured in the same run</text>\n"
        for figure in limits {
            y += 18
            let ratio = figure.ratio.map { " = \(Figure.format($0))×" } ?? ""
            out +=
                "<text x=\"20\" y=\"\(f(y))\">\(escape(figure.name)): \(Figure.format(figure.value)) \(escape(figure.unit))\(ratio)</text>\n"
        }
        return out + "</svg>\n"
    }

    /// Above 1 when the target is beaten: by how many times.
    static func score(_ ratio: Double, _ goal: Figure.Goal) -> Double {
        switch goal {
        case let .atLeast(target): ratio / target
        case let .atMost(target): ratio > 0 ? target / ratio : 1e9
        }
    }

    static func f(_ x: Double) -> String { String(format: "%.1f", x) }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
