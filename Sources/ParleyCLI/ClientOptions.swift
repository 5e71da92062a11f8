import ArgumentParser
import Foundation

/// Options every client command shares: which node to talk to, and the output format.
struct ClientOptions: ParsableArguments {
    @Option(name: .long, help: "The node's data directory (default: $PARLEY_DATA).")
    var data: String?

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    func dataDirectory() throws -> String {
        let environment = ProcessInfo.processInfo.environment["PARLEY_DATA"].flatMap { $0.isEmpty ? nil : $0 }
        guard let directory = data ?? environment else { throw ValidationError("no data directory: pass --data DIR or set PARLEY_DATA") }
        try DataDirectory.check(directory)
        return directory
    }

    func client() async throws -> ControlClient {
        try await ControlClient.connect(dataDirectory: try dataDirectory())
    }
}
