import Foundation

/// What one run writes: `{"figures":[…]}`, plus the mode and how long the run took.
struct Report: Sendable, Encodable {
    let mode: String
    let durationSeconds: Double
    let figures: [Figure]

    enum CodingKeys: String, CodingKey { case mode, durationSeconds = "duration_s", figures }

    func write(json path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(0x0A)
        try Output.write(data, to: path)
    }
}

enum Output {
    /// Writes a file, creating its directory first.
    static func write(_ data: Data, to path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
