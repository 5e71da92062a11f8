import ArgumentParser
import Foundation
import ParleyAPI
import ParleyCrypto

/// Where `read --upto` stops: "#12", a message number as `parley messages` lists it, or a message
/// id prefix, as every other command names a message.
enum ReadTarget: Equatable {
    case number(Int64)
    case message(String)

    init(_ text: String) throws {
        if text.hasPrefix("#") {
            guard let number = Int64(text.dropFirst()), number > 0 else {
                throw ValidationError(
                    "--upto #N takes a message number as 'parley messages' lists it (e.g. #12), not '\(text)'")
            }
            self = .number(number)
        } else {
            guard !text.isEmpty, Hex.isHexPrefix(text) else {
                throw ValidationError("--upto takes a message id prefix (hex, as listed) or #N, not '\(text)'")
            }
            self = .message(text)
        }
    }
}

struct Read: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mark a chat read (up to a message) and send read receipts to the authors.")

    @Argument(help: "The chat (id prefix or title).")
    var chat: String

    @Option(
        name: .customLong("upto"),
        help: "Read up to this message: its id prefix, or #N as 'parley messages' lists it; default: the latest.")
    var upTo: String?

    @OptionGroup var options: ClientOptions

    func validate() throws { _ = try upTo.map(ReadTarget.init) }

    func run() async throws {
        let request: APIRequest =
            switch try upTo.map(ReadTarget.init) {
            case nil: .read(chat: chat)
            case let .number(number): .read(chat: chat, upTo: number)
            case let .message(prefix): .read(chat: chat, message: prefix)
            }
        try await runRequest(request, options: options, as: ReadView.self) { view in
            "read up to #\(view.marker) (\(view.newlyRead) newly read, \(view.unread) unread)"
        }
    }
}
