import ParleyCore
import ParleyNode
import ParleyStore

/// Files and pictures (issue 37, PROTOCOL.md §13e).
extension APIService {
    func handleFiles(_ request: APIRequest) async throws -> APIResult {
        switch request {
        case let .fileSend(chat, path, name, caption, keepMetadata):
            let chatID = try resolveChat(chat)
            let stored = try await node.sendFile(
                chat: chatID, path: path, name: name, caption: caption ?? "", keepMetadata: keepMetadata ?? false)
            return Self.ok(FileView(try node.file(stored.id), names: try names()))
        case let .files(chat):
            let names = try names()
            return Self.ok(try node.files(chat: try resolveChat(chat)).map { FileView($0, names: names) })
        case let .file(chat, file):
            return Self.ok(FileView(try node.file(try resolveFile(chat, file)), names: try names()))
        case let .fileFetch(chat, file):
            return Self.ok(FileView(try await node.fetchFile(try resolveFile(chat, file)), names: try names()))
        case let .fileSave(chat, file, to):
            let id = try resolveFile(chat, file)
            let path = try node.saveFile(id, to: to)
            return Self.ok(SavedFileView(file: FileView(try node.file(id), names: try names()), path: path))
        default: throw NodeError.invalid("not a file request")
        }
    }

    /// A file message of the chat, by id prefix.
    func resolveFile(_ chat: String, _ file: String) throws -> MessageID {
        let (_, id) = try resolveMessage(chat, file)
        return id
    }

    /// The whole file's path and view, for the HTTP front end's download and picture routes.
    public func heldFile(chat: String, file: String) throws -> (path: String, view: FileView) {
        let id = try resolveFile(chat, file)
        let path = try node.heldFilePath(id)
        return (path, FileView(try node.file(id), names: try names()))
    }
}
