import ArgumentParser
import Foundation
import ParleyAPI
import ParleyTerminal

/// How a failed command tells the person or script that ran it: one line on stderr, "Error: …", or
/// under `--json` `{"error":{"kind":"notFound","message":"…"}}`, and an exit code that is the same
/// either way (the node's failure kinds: `APIFailure.Kind.exitCode`; ArgumentParser's for its own).
struct FailureReport: Encodable, Equatable {
    struct Body: Encodable, Equatable {
        let kind: APIFailure.Kind
        let message: String
    }

    let error: Body
    let exitCode: Int32

    private enum CodingKeys: String, CodingKey { case error }

    /// Classifies what `Parley.main` caught; nil for ArgumentParser's clean exits (help, version),
    /// which it prints itself.
    init?(_ error: any Error) {
        if let error = error as? CLIError {
            self.init(kind: error.kind, message: error.description, exitCode: error.exitCode)
            return
        }
        let exitCode = Parley.exitCode(for: error)
        guard exitCode != .success else { return nil }
        // Usage mistakes: a bad option or argument, or a check a command made before asking the node.
        let isUsage = exitCode == .validationFailure || error is ValidationError
        self.init(kind: isUsage ? .invalid : APIFailure(error).kind, message: Parley.message(for: error), exitCode: exitCode.rawValue)
    }

    private init(kind: APIFailure.Kind, message: String, exitCode: Int32) {
        // A message may quote what a peer wrote (a title, a name): printable, on one line, in both forms.
        self.error = Body(kind: kind, message: SafeText.singleLine(message))
        self.exitCode = exitCode
    }

    /// Whether the command line asks for JSON: `--json` among the options, before any `--`. Read from
    /// the raw arguments because a parse error leaves no parsed command to ask.
    static func wantsJSON(_ arguments: some Sequence<String>) -> Bool {
        arguments.prefix { $0 != "--" }.contains("--json")
    }

    /// The JSON line under `--json`.
    var json: String {
        (try? APIJSON.encode(self)) ?? #"{"error":{"kind":"internal","message":"the error could not be encoded"}}"#
    }
}
