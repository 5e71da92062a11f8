import ArgumentParser
import ParleyAPI
import ParleyNode

struct Local: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Local data: key/values kept on this node only, never sent.", subcommands: [Get.self, Set.self])
}

extension Local {
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a message's local value for KEY.")
        @Argument var message: String
        @Argument var key: String
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runRequest(.localGet(message: message, key: key), options: options, as: LocalDataView.self) { $0.value ?? "" }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set a message's local value for KEY.")
        @Argument var message: String
        @Argument var key: String
        @Argument var value: String
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runRequest(.localSet(message: message, key: key, value: value), options: options, as: LocalDataView.self) {
                "\($0.key) = \($0.value ?? "")"
            }
        }
    }
}
