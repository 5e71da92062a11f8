/// The table printed at the end of a run: each figure, its limit, the ratio, the target and whether it was met.
enum TableRenderer {
    static func cells(_ figure: Figure) -> [String] {
        let value = "\(Figure.format(figure.value)) \(figure.unit)"
        var limit = ""
        if let figureLimit = figure.limit { limit = "\(Figure.format(figureLimit)) \(figure.unit)" }
        var ratio = ""
        if let figureRatio = figure.ratio { ratio = Figure.format(figureRatio) + "×" }
        var met = ""
        if let figureMet = figure.met { met = figureMet ? "yes" : "NO" }
        return [figure.name, value, limit, ratio, figure.target ?? "", met]
    }

    static func render(_ report: Report) -> String {
        let header = ["figure", "value", "limit", "ratio", "target", "met"]
        let rows = report.figures.map(cells)
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 || column >= 4 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        let summary = report.figures.compactMap(\.met)
        let met = summary.count { $0 }
        return
            ([line(header), rule] + rows.map(line) + [
                rule, "\(report.mode) run: \(met) of \(summary.count) targets met",
            ])
            .joined(separator: "\n")
    }
}
