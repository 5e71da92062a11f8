import ArgumentParser
import Foundation
import ParleyAPI

struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send a message and say so; piped, it prints the message's id alone (with --json, its view).")

    @Argument(help: "The chat (id prefix or title).")
    var chat: String

    @Argument(help: "The message text.")
    var text: String?

    @Option(help: "Send a Custom message: this JSON object or array instead of text.")
    var custom: String?

    @Option(help: "The message's tag.")
    var tag = "Text"

    @Option(name: .customLong("ref"), help: "A referenced message, MESSAGE[:TAG]; repeat for several.")
    var refs: [String] = []

    @Option(name: .customLong("file"), help: "Send this file or picture instead of text; repeat for several.")
    var files: [String] = []

    @Option(help: "With --file: a caption shown with the file.")
    var caption: String?

    @Flag(help: "With --file: keep a picture's metadata (EXIF, GPS), which is stripped by default.")
    var keepMetadata = false

    @OptionGroup var options: ClientOptions

    func validate() throws {
        if !files.isEmpty {
            guard text == nil, custom == nil, tag == "Text", refs.isEmpty else {
                throw ValidationError(
                    "--file sends files: give no message text, --custom, --tag or --ref with it (a caption is --caption)"
                )
            }
            return
        }
        if caption != nil || keepMetadata { throw ValidationError("--caption and --keep-metadata go with --file") }
        switch (text, custom) {
        case (nil, nil): throw ValidationError("give the message text, or --custom JSON")
        case (.some, .some): throw ValidationError("give either the message text or --custom JSON, not both")
        case (nil, .some) where tag != "Text":
            throw ValidationError("--custom sends a Custom message; it takes no --tag")
        default: break
        }
    }

    func run() async throws {
        if !files.isEmpty { return try await sendFiles() }
        let request: APIRequest =
            if let custom {
                .send(chat: chat, text: custom, tag: "Custom", refs: refs)
            } else {
                .send(chat: chat, text: text ?? "", tag: tag, refs: refs)
            }
        try await runPosting(request, options: options)
    }

    /// Each file in turn, by its absolute path (the node reads it, from its own working directory).
    private func sendFiles() async throws {
        let here = FileManager.default.currentDirectoryPath
        for path in files {
            let absolute = path.hasPrefix("/") ? path : (here as NSString).appendingPathComponent(path)
            let request = APIRequest.fileSend(chat: chat, path: absolute, caption: caption, keepMetadata: keepMetadata)
            try await runRequest(request, options: options, as: FileView.self) { view in
                "sent \(FileLines.summary(view)) (id \(view.id.prefix(8)))"
            }
        }
    }
}
