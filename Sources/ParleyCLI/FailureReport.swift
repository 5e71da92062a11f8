import ArgumentParser
import Foundation
import ParleyAPI
import ParleyControlSocket
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
    /// For a usage mistake, the help to read: "parley poll create --help".
    let help: String?

    private enum CodingKeys: String, CodingKey { case error }

    /// Classifies what `Parley.main` caught, on the command line `path` read; nil for ArgumentParser's
    /// clean exits (help, version), which it prints itself.
    init?(_ error: any Error, path: CommandPath) {
        if let error = (error as? ControlClientError).map(CLIError.init) ?? error as? CLIError {
            self.init(kind: error.kind, message: error.description, exitCode: error.exitCode, help: nil)
            return
        }
        let exitCode = Parley.exitCode(for: error)
        guard exitCode != .success else { return nil }
        // Usage mistakes: a bad option or argument, or a check a command made before asking the node.
        let isUsage = exitCode == .validationFailure || error is ValidationError
        // ArgumentParser reads a mistyped subcommand as unexpected arguments: name it, and what was meant.
        let message = (isUsage ? path.unknownMessage : nil) ?? Parley.message(for: error)
        self.init(
            kind: isUsage ? .invalid : APIFailure(error).kind, message: message, exitCode: exitCode.rawValue,
            help: isUsage ? "\(path.names.joined(separator: " ")) --help" : nil)
    }

    private init(kind: APIFailure.Kind, message: String, exitCode: Int32, help: String?) {
        // A message may quote what a peer wrote (a title, a name): printable, on one line, in both forms.
        self.error = Body(kind: kind, message: SafeText.singleLine(message))
        self.exitCode = exitCode
        self.help = help
    }

    /// The line after "Error: " without `--json`.
    var text: String { error.message + (help.map { " (see '\($0)')" } ?? "") }

    /// Whether the command line asks for JSON: `--json` among the options, before any `--`. Read from
    /// the raw arguments because a parse error leaves no parsed command to ask.
    static func wantsJSON(_ arguments: some Sequence<String>) -> Bool {
        optionWords(arguments).contains("--json")
    }

    /// The words of a command line that can be options: those before any `--`.
    static func optionWords(_ arguments: some Sequence<String>) -> [String] {
        Array(arguments.prefix { $0 != "--" })
    }

    /// The JSON line under `--json`.
    var json: String {
        (try? APIJSON.encode(self)) ?? #"{"error":{"kind":"internal","message":"the error could not be encoded"}}"#
    }
}
