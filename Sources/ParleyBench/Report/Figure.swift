import Foundation

/// One measured figure, compared with its limit when it has one.
///
/// `ratio` is value / limit. `target` states the goal as a condition on that ratio
/// ("ratio >= 0.5", "ratio <= 2"), and `met` says whether this run reached it.
struct Figure: Sendable, Encodable {
    enum Goal: Sendable {
        case atLeast(Double)
        case atMost(Double)

        var text: String {
            switch self {
            case let .atLeast(ratio): "ratio >= \(Figure.format(ratio))"
            case let .atMost(ratio): "ratio <= \(Figure.format(ratio))"
            }
        }

        func met(_ ratio: Double) -> Bool {
            switch self {
            case let .atLeast(goal): ratio >= goal
            case let .atMost(goal): ratio <= goal
            }
        }
    }

    let name: String
    let value: Double
    let unit: String
    let limit: Double?
    let goal: Goal?

    var ratio: Double? { limit.map { value / $0 } }
    /// Drawn as a bar against its target; the others are listed as limits.
    var isTargeted: Bool { goal != nil && ratio != nil }
    var target: String? { goal?.text }
    var met: Bool? {
        guard let goal, let ratio else { return nil }
        return goal.met(ratio)
    }

    init(_ name: String, _ value: Double, _ unit: String, limit: Double? = nil, goal: Goal? = nil) {
        self.name = name
        self.value = value
        self.unit = unit
        self.limit = limit
        self.goal = goal
    }

    enum CodingKeys: String, CodingKey { case name, value, unit, limit, ratio, target, met }

    /// Every key is written, with null where a figure has no limit or target.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(Self.rounded(value), forKey: .value)
        try container.encode(unit, forKey: .unit)
        try container.encode(limit.map(Self.rounded), forKey: .limit)
        try container.encode(ratio.map(Self.rounded), forKey: .ratio)
        try container.encode(target, forKey: .target)
        try container.encode(met, forKey: .met)
    }

    /// Four significant digits are plenty for a benchmark, and keep the JSON diff readable.
    static func rounded(_ x: Double) -> Double {
        guard x.isFinite, x != 0 else { return x.isFinite ? 0 : -1 }
        let digits = 4 - Int(log10(abs(x)).rounded(.up))
        let scale = pow(10, Double(digits))
        return (x * scale).rounded() / scale
    }

    static func format(_ x: Double) -> String {
        if x == x.rounded(), abs(x) < 1e15 { return String(Int(x)) }
        let magnitude = abs(x)
        let decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3
        return String(format: "%.\(decimals)f", x)
    }
}
