import ParleyAPI
import ParleyControlSocket

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

    /// The control socket's failure: the node's refusal as the node's, no node to ask as the CLI's own.
    init(_ error: ControlClientError) {
        if let refusal = error.refusal {
            self.init(node: refusal.message, kind: refusal.kind)
        } else {
            self.init(error.description, kind: error.kind)
        }
    }
}
