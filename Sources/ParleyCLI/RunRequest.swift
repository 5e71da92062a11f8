import Foundation
import ParleyAPI
import ParleyControlSocket
import ParleyTerminal

extension ControlClient {
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
    _ request: APIRequest, options: ClientOptions, as type: View.Type, id: (View) -> String,
    notice: (View) -> String? = { _ in nil }
) async throws {
    let view = try await ControlClient.callOnce(request, options: options, as: type)
    try Done.report(request, id: id(view), view: view, json: options.json)
    if !options.json, let line = notice(view) { printNote(line) }
}

/// Runs a request that posts a message (send, poll actions, reactions).
func runPosting(_ request: APIRequest, options: ClientOptions) async throws {
    try await runPosting(
        request, options: options, as: MessageView.self, id: \.id, notice: { Render.noRoute($0.noRoute ?? []) })
}
