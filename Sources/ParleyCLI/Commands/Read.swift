import ArgumentParser
import Foundation
import ParleyAPI
import ParleyNode

/// A message number as `parley messages` lists it: "12" or "#12".
enum HistoryCursor {
    static func parse(_ text: String?, flag: String) throws -> Int64? {
        guard let text else { return nil }
        let digits = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
        guard let number = Int64(digits), number > 0 else {
            throw ValidationError("\(flag) takes a message number as 'parley messages' lists it (e.g. 12 or #12), not '\(text)'")
        }
        return number
    }
}

struct Read: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mark a chat read (up to a message) and send read receipts to the authors.")

    @Argument(help: "The chat (id prefix or title).")
    var chat: String

    @Option(name: .customLong("upto"), help: "Read up to this message number (#N as listed); default: the latest.")
    var upTo: String?

    @OptionGroup var options: ClientOptions

    func validate() throws { _ = try HistoryCursor.parse(upTo, flag: "--upto") }

    func run() async throws {
        let request = APIRequest.read(chat: chat, upTo: try HistoryCursor.parse(upTo, flag: "--upto"))
        try await runRequest(request, options: options, as: ReadView.self) { view in
            "read up to #\(view.marker) (\(view.newlyRead) newly read, \(view.unread) unread)"
        }
    }
}

struct Receipts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Who has received and read one of your messages.")

    @Argument(help: "The chat (id prefix or title).")
    var chat: String

    @Argument(help: "The message (id prefix).")
    var message: String

    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await runRequest(.receipts(chat: chat, message: message), options: options, as: [ReceiptView].self) { receipts in
            receipts.isEmpty ? "(no other members)" : receipts.map(Render.receipt).joined(separator: "\n")
        }
    }
}
