import ArgumentParser
import ParleyNode

struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Send a message; prints its id.")

    @Argument(help: "The chat (id prefix or title).")
    var chat: String

    @Argument(help: "The message text.")
    var text: String

    @Option(help: "The message's tag.")
    var tag = "Text"

    @Option(name: .customLong("ref"), help: "A referenced message, MESSAGE[:TAG]; repeat for several.")
    var refs: [String] = []

    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await runPosting(.send(chat: chat, text: text, tag: tag, refs: refs), options: options)
    }
}

struct Messages: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Criteria query: a chat's messages, by tag and by what they reference.")

    @Argument(help: "The chat (id prefix or title).")
    var chat: String

    @Option(help: "Only messages with this tag.")
    var tag: String?

    @Option(help: "Only messages that reference this message.")
    var ref: String?

    @Option(name: .customLong("ref-tag"), help: "Only references carrying this tag.")
    var refTag: String?

    @Option(help: "At most this many (the latest).")
    var limit: Int?

    @OptionGroup var options: ClientOptions

    func validate() throws {
        if let limit, limit <= 0 { throw ValidationError("--limit must be a positive number") }
        if refTag != nil, ref == nil { throw ValidationError("--ref-tag needs --ref") }
    }

    func run() async throws {
        let request = ControlRequest.messages(chat: chat, tag: tag, ref: ref, refTag: refTag, limit: limit)
        try await runRequest(request, options: options, as: [MessageView].self) { messages in
            messages.isEmpty ? "(no messages)" : messages.map(Render.line).joined(separator: "\n")
        }
    }
}

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The node's peers and protocol counters.")
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await runRequest(.status, options: options, as: NodeStatus.self) { status in
            var lines = ["peer \(status.peer)", "listening on \(status.listen)"]
            lines.append("connected: \(status.connectedPeers.map { String($0.prefix(12)) }.joined(separator: ", "))")
            lines.append("datagrams in \(status.datagramsIn), out \(status.datagramsOut), awaiting ack \(status.pendingRetransmits)")
            let rejections = status.rejections.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            lines.append("rejected: \(rejections.isEmpty ? "none" : rejections.joined(separator: ", "))")
            return lines.joined(separator: "\n")
        }
    }
}
