import Foundation
import ParleyTerminal
import ParleyAPI
import ParleyNode
import ParleyTransport

/// Talks to a running node over its control socket (`DIR/control.sock`), one JSON line each way.
struct ControlClient {
    static func socketPath(dataDirectory: String) -> String { "\(dataDirectory)/control.sock" }

    let connection: LineClient

    static func connect(dataDirectory: String) async throws -> ControlClient {
        let path = socketPath(dataDirectory: dataDirectory)
        guard FileManager.default.fileExists(atPath: path) else {
            throw CLIError("no node is running with data directory \(dataDirectory) (start one with 'parley node --data \(dataDirectory) …')", kind: .unavailable)
        }
        do {
            return ControlClient(connection: try await LineClient.connect(path: path))
        } catch {
            throw CLIError("cannot reach the node in \(dataDirectory): \(error)", kind: .unavailable)
        }
    }

    /// Sends one request and decodes the `result` of its response, or throws the node's error.
    func call<Result: Codable & Sendable>(_ request: APIRequest, as type: Result.Type) async throws -> Result {
        try await connection.send(try APIJSON.encode(request))
        for try await line in connection.lines {
            let response = try APIJSON.decode(APIResponse<Result>.self, from: line)
            guard response.ok, let result = response.result else {
                throw CLIError(node: response.error ?? "the node gave no answer", kind: response.kind ?? .internal)
            }
            return result
        }
        throw CLIError("the node closed the connection without answering")
    }

    func close() async { await connection.close() }

    /// Connects, asks once, and hangs up, whatever the outcome.
    static func callOnce<Result: Codable & Sendable>(
        _ request: APIRequest, options: some NodeConnecting, as type: Result.Type
    ) async throws -> Result {
        let client = try await options.client()
        do {
            let result = try await client.call(request, as: type)
            await client.close()
            return result
        } catch {
            await client.close()
            throw error
        }
    }
}

/// A one-line failure for the person at the terminal. `Parley.main` prints it (as JSON under `--json`,
/// with its kind) and exits with its code: the node's failure kind (`APIFailure.Kind.exitCode`), or 1
/// for a failure of the CLI itself.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    /// What `--json` reports as the error's kind.
    let kind: APIFailure.Kind
    let exitCode: Int32

    /// A failure of the CLI itself: exit code 1 whatever its kind, as before kinds were reported.
    init(_ description: String, kind: APIFailure.Kind = .internal, exitCode: Int32 = 1) {
        self.description = description
        self.kind = kind
        self.exitCode = exitCode
    }

    /// A failure the node answered with: its kind decides the exit code.
    init(node description: String, kind: APIFailure.Kind) {
        self.init(description, kind: kind, exitCode: kind.exitCode)
    }
}

/// Runs one request against the node in `options` and prints the result as JSON or text; in text
/// mode, `notice` may add a line for the user on stderr (under `--json` the result carries it).
func runRequest<Result: Codable & Sendable>(
    _ request: APIRequest, options: ClientOptions, as type: Result.Type, text: (Result) -> String,
    notice: (Result) -> String? = { _ in nil }
) async throws {
    let result = try await ControlClient.callOnce(request, options: options, as: type)
    // Text output passes through SafeText: peers wrote much of it.
    print(options.json ? try APIJSON.encode(result) : SafeText.display(text(result)))
    if !options.json, let line = notice(result) { printNote(line) }
}

/// A line for the user on stderr, after the result: "Note: …".
func printNote(_ line: String) {
    FileHandle.standardError.write(Data("Note: \(SafeText.display(line))\n".utf8))
}

/// Runs a request that posts something (a message, a poll, a chat) and says what it did (`Done`);
/// in text mode, `notice` may add a line on stderr.
func runPosting<View: Codable & Sendable>(
    _ request: APIRequest, options: ClientOptions, as type: View.Type, id: (View) -> String, notice: (View) -> String? = { _ in nil }
) async throws {
    let view = try await ControlClient.callOnce(request, options: options, as: type)
    try Done.report(request, id: id(view), view: view, json: options.json)
    if !options.json, let line = notice(view) { printNote(line) }
}

/// Runs a request that posts a message (send, poll actions, reactions).
func runPosting(_ request: APIRequest, options: ClientOptions) async throws {
    try await runPosting(request, options: options, as: MessageView.self, id: \.id, notice: { Render.noRoute($0.noRoute ?? []) })
}
