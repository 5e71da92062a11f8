import ArgumentParser
import Foundation
import ParleyHTTP

/// `parley web`: the URL that logs a browser in to the node's web app (`parley node --web HOST:PORT`).
struct Web: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the URL that logs a browser in to this node's web app (the node runs with --web).")

    @Option(name: .long, help: "The node's data directory (default: $PARLEY_DATA).")
    var data: String?

    func run() throws {
        guard let directory = data ?? ProcessInfo.processInfo.environment["PARLEY_DATA"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            throw ValidationError("no data directory: pass --data DIR or set PARLEY_DATA")
        }
        do {
            guard let address = try WebAddressFile.read(dataDirectory: directory) else {
                throw CLIError("the node of \(directory) is not serving the web app: start it with 'parley node … --web 127.0.0.1:8080'")
            }
            let token = try WebToken.load(dataDirectory: directory)
            // The URL carries the token: it goes to stdout only, for the user to open.
            print("http://\(address)/login?token=\(token.hex)")
        } catch let error as WebError {
            throw CLIError(error.description)
        }
    }
}
