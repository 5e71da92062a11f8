import ParleyNode

/// Where an upload is written before it is sent: `path` (in the node's file folder, not yet made),
/// and the most bytes it may hold (the node's per-file cap).
public struct UploadTarget: Sendable, Hashable {
    public let path: String
    public let maxBytes: Int64
}

/// What the HTTP front end needs for files beyond the requests: uploads streamed to a staging file
/// and sent from there, and a file's view before its bytes are served.
extension APIService {
    /// Checked before any byte of an upload is read: `chat` must name a chat here and this node must
    /// keep files, so a wrong chat is refused at once rather than after a long upload.
    public func prepareUpload(chat: String) throws(APIFailure) -> UploadTarget {
        do {
            _ = try resolveChat(chat)
            return UploadTarget(path: try node.stagingPath(), maxBytes: node.configuration.files.maxFileBytes)
        } catch { throw APIFailure(error) }
    }

    /// Sends the uploaded file at `path` (a staging file of `prepareUpload`) as `fileSend` would; the
    /// caller removes the staging file afterwards, whatever the answer.
    public func sendUploaded(chat: String, path: String, name: String, caption: String?) async -> APIAnswer {
        await answer(to: .fileSend(chat: chat, path: path, name: name, caption: caption, keepMetadata: nil))
    }

    /// One file message's view, held or not (`file`'s result, typed).
    public func fileView(chat: String, file: String) throws(APIFailure) -> FileView {
        do { return FileView(try node.file(try resolveFile(chat, file)), names: try names()) } catch {
            throw APIFailure(error)
        }
    }
}
