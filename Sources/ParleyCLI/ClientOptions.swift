import ArgumentParser
import Foundation

/// Options every client command shares: which node to talk to, and the output format.
struct ClientOptions: ParsableArguments {
    @Option(name: .long, help: "The node's data directory (default: $PARLEY_DATA).")
    var data: String?

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    func dataDirectory() throws -> String {
        if let data { return data }
        if let env = ProcessInfo.processInfo.environment["PARLEY_DATA"], !env.isEmpty { return env }
        throw ValidationError("no data directory: pass --data DIR or set PARLEY_DATA")
    }

    func client() async throws -> ControlClient {
        try await ControlClient.connect(dataDirectory: try dataDirectory())
    }
}
