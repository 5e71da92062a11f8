import ArgumentParser
import Foundation

/// `--closes-at`: ISO-8601, or relative to now as +N followed by s, m, h or d.
enum PollTime {
    static func parse(_ text: String, now: Date = Date()) throws -> Int64 {
        if text.hasPrefix("+") {
            let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
            guard let unit = text.last.flatMap({ units[$0] }), let amount = Double(text.dropFirst().dropLast()),
                amount > 0
            else {
                throw ValidationError("'\(text)' is not a relative time; use +30s, +10m, +2h or +1d")
            }
            return Int64((now.timeIntervalSince1970 + amount * unit) * 1_000)
        }
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [
            [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime],
        ] {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return Int64(date.timeIntervalSince1970 * 1_000) }
        }
        throw ValidationError("'\(text)' is not a time; use ISO-8601 such as 2026-11-23T18:00:00Z, or +10m")
    }
}
