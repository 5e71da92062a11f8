import ArgumentParser
import Foundation
import ParleyAPI
import ParleyControlSocket
import ParleyHTTP

/// `parley web`: a one-time link that logs a browser in to the node's web app (`parley node --web
/// HOST:PORT`), or with `--revoke`, the end of every web session and a new token.
struct Web: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a one-time link that logs a browser in to this node's web app (the node runs with --web).",
        discussion: """
            The link works once, within a minute: run 'parley web' again for another browser. The node \
            keeps the browser logged in (30 days after its last use) until it logs out or you run \
            'parley web --revoke', which ends every web session and replaces DATA/web-token (the token \
            scripts send as 'Authorization: Bearer'), whether the node is running or not.
            """)

    @Option(name: .long, help: "The node's data directory (default: $PARLEY_DATA).")
    var data: String?

    @Flag(help: "End every web session and replace the web token, instead of printing a link.")
    var revoke = false

    func run() async throws {
        guard
            let directory = data
                ?? ProcessInfo.processInfo.environment["PARLEY_DATA"].flatMap({ $0.isEmpty ? nil : $0 })
        else {
            throw ValidationError("no data directory: pass --data DIR or set PARLEY_DATA")
        }
        if revoke {
            print(try await revokeAll(directory: directory))
            return
        }
        guard try webAddress(directory) != nil else {
            throw CLIError(
                "the node of \(directory) is not serving the web app: start it with 'parley node … --web 127.0.0.1:8080'",
                kind: .unavailable)
        }
        let client = try await ControlClient.connect(dataDirectory: directory)
        let link: WebLoginView
        do {
            link = try await client.call(.webLogin, as: WebLoginView.self)
            await client.close()
        } catch {
            await client.close()
            throw error
        }
        // The link logs a browser in: stdout only, for the user to open.
        print(link.url)
        // On stderr, so stdout stays the one URL a script opens.
        if let fingerprint = WebAddressFile.fingerprint(dataDirectory: directory) {
            FileHandle.standardError.write(
                Data(
                    "web app certificate SHA-256 \(fingerprint) (check that the browser shows the same before you log in)\n"
                        .utf8))
        }
    }

    /// The running node revokes at once (its open pages get 401 and their sockets close); a node that
    /// is not running, or does not serve the web app, is revoked on its files, which it reads when it starts.
    private func revokeAll(directory: String) async throws -> String {
        let tokenPath = WebToken.path(dataDirectory: directory)
        if try webAddress(directory) != nil, let client = try? await ControlClient.connect(dataDirectory: directory) {
            do {
                let revoked = try await client.call(.webRevoke, as: WebRevokeView.self)
                await client.close()
                return
                    "revoked: \(sessions(revoked.sessionsEnded)) ended in the running node, and a new token is in \(tokenPath)"
            } catch let error as ControlClientError where error.kind == .unavailable {
                // It serves no web app after all (its address file was left by a node that was killed).
                await client.close()
            }
        }
        do {
            let revoked = try WebAccess.revokeOffline(dataDirectory: directory)
            return
                "revoked: \(sessions(revoked.sessionsEnded)) ended, and a new token is in \(tokenPath) (no node was serving the web app)"
        } catch {
            throw CLIError(error.description)
        }
    }

    private func webAddress(_ directory: String) throws -> WebAddress? {
        do { return try WebAddressFile.read(dataDirectory: directory) } catch { throw CLIError(error.description) }
    }

    private func sessions(_ count: Int) -> String { count == 1 ? "1 web session" : "\(count) web sessions" }
}
