import ArgumentParser
import ParleyAPI
import ParleyControlSocket
import ParleyTerminal

struct Local: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Local data: key/values kept on this node only, never sent.",
        discussion:
            "Parley keeps its own keys here too (\(LocalDataView.parleysOwnKeys.keys.sorted().joined(separator: ", "))): they can be read, not set or deleted.",
        subcommands: [Get.self, Set.self, List.self, Delete.self])
}

/// The arguments every `local` subcommand shares.
private enum LocalHelp {
    static let message: ArgumentHelp = "The message (an id prefix, in any chat)."
    static let key: ArgumentHelp = "The key: a name of your choosing, such as note."
}

extension Local {
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a message's local value for KEY; exits 1 when it has none.")
        @Argument(help: LocalHelp.message) var message: String
        @Argument(help: LocalHelp.key) var key: String
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await Local.printValue(of: .localGet(message: message, key: key), options: options) { _, value in value
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set a message's local value for KEY.")
        @Argument(help: LocalHelp.message) var message: String
        @Argument(help: LocalHelp.key) var key: String
        @Argument(help: "The value: any text, kept on this node only.") var value: String
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runRequest(
                .localSet(message: message, key: key, value: value), options: options, as: LocalDataView.self
            ) {
                "\($0.key) = \($0.value ?? "")"
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a message's local values, by key.")
        @Argument(help: LocalHelp.message) var message: String
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runRequest(.localList(message: message), options: options, as: [LocalDataView].self) { values in
                values.isEmpty
                    ? "(no local data)"
                    : values.map { view in
                        let own = LocalDataView.parleysPurpose(of: view.key) != nil ? "  (Parley's own)" : ""
                        return "\(view.key) = \(view.value ?? "")\(own)"
                    }.joined(separator: "\n")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a message's local value for KEY; exits 1 when it has none.")
        @Argument(help: LocalHelp.message) var message: String
        @Argument(help: LocalHelp.key) var key: String
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await Local.printValue(of: .localDelete(message: message, key: key), options: options) { view, value in
                "deleted \(view.key) (was \(value))"
            }
        }
    }

    /// Prints the value a request answered (`text` of it, or the view as JSON); exits 1 when unset.
    static func printValue(
        of request: APIRequest, options: ClientOptions, text: (LocalDataView, String) -> String
    ) async throws {
        let view = try await ControlClient.callOnce(request, options: options, as: LocalDataView.self)
        guard let value = view.value else { throw Local.unset(view) }
        print(options.json ? try APIJSON.encode(view) : SafeText.display(text(view, value)))
    }

    /// An unset key is not an error of the node (its answer is a null value) but of the command, as
    /// `git config --get` exits 1: a script can tell "unset" from "empty".
    static func unset(_ view: LocalDataView) -> CLIError {
        CLIError("no local value '\(view.key)' on message \(view.message.prefix(12))…", kind: .notFound)
    }
}
