import ArgumentParser
import ParleyAPI

struct Receipts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Who has received and read one of your messages.")

    @Argument(help: "The chat (id prefix or title).")
    var chat: String

    @Argument(help: "The message (id prefix).")
    var message: String

    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await runRequest(.receipts(chat: chat, message: message), options: options, as: [ReceiptView].self) {
            receipts in
            receipts.isEmpty ? "(no other members)" : receipts.map(Render.receipt).joined(separator: "\n")
        }
    }
}
