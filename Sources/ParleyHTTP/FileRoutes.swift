import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyAPI
import _NIOFileSystem

/// Files and pictures over HTTP (PROTOCOL.md §13e, docs/openapi.yaml): the page uploads a file's bytes
/// as they are, and downloads or shows held files, where the control socket names paths on the node's
/// machine instead (`fileSend`, `fileSave`, refused over HTTP).
struct FileRoutes: Sendable {
    /// Read and sent at a time: a download's memory stays one chunk, whatever the file's size.
    static let chunkBytes = 64 << 10
    /// The pictures the page may show: types no browser runs scripts in (never SVG).
    static let pictureTypes: Set<String> = ["image/png", "image/jpeg", "image/gif", "image/webp"]
    /// A served file is a peer's bytes: opened on its own, nothing in it may run, load or be framed.
    static let contentSecurityPolicy = "default-src 'none'; sandbox"

    let service: APIService

    func add<Context: RequestContext>(to router: Router<Context>) {
        router.post("/api/upload") { request, _ in try await upload(request) }
        router.get("/api/files/:chat/:file") { _, context in
            try await serve(context.parameters, context: context, asPicture: false)
        }
        router.get("/api/pictures/:chat/:file") { _, context in
            try await serve(context.parameters, context: context, asPicture: true)
        }
    }

    // MARK: upload

    /// `POST /api/upload?chat=CHAT&name=NAME[&caption=TEXT]`: the body, streamed to a staging file
    /// (mode 0600) in the node's file folder and never held whole, then sent as `fileSend` sends a
    /// path. The staging file is removed whatever happens; the answer is the file's view.
    func upload(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        guard let chat = query.get("chat"), !chat.isEmpty, let name = query.get("name"), !name.isEmpty else {
            return WebResponses.error(
                status: .badRequest, kind: WebErrorKind.invalid.rawValue,
                message:
                    "upload with POST /api/upload?chat=CHAT&name=NAME (and &caption=TEXT), the file's bytes as the body"
            )
        }
        guard Self.isOctetStream(request.headers[.contentType]) else {
            return WebResponses.error(
                status: .unsupportedMediaType, kind: WebErrorKind.invalid.rawValue,
                message: "an upload's body is the file's bytes as they are: Content-Type: application/octet-stream")
        }
        let target: UploadTarget
        do { target = try service.prepareUpload(chat: chat) } catch { return WebResponses.error(error) }
        // Refused before reading a byte when the length says so; a chunked body is counted as it comes.
        if let declared = request.headers[.contentLength].flatMap(Int64.init), declared > target.maxBytes {
            return Self.tooLarge(target.maxBytes)
        }
        defer { try? FileManager.default.removeItem(atPath: target.path) }
        do {
            try await Self.write(request.body, to: target.path, maxBytes: target.maxBytes)
        } catch is UploadTooLarge {
            return Self.tooLarge(target.maxBytes)
        }
        switch await service.sendUploaded(chat: chat, path: target.path, name: name, caption: query.get("caption")) {
        case let .success(json): return WebResponses.json(json)
        case let .failure(failure): return WebResponses.error(failure)
        }
    }

    static func isOctetStream(_ contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";").first else { return false }
        return type.trimmingCharacters(in: .whitespaces).lowercased() == "application/octet-stream"
    }

    static func tooLarge(_ maxBytes: Int64) -> Response {
        WebResponses.error(
            status: .contentTooLarge, kind: WebErrorKind.tooLarge.rawValue,
            message: "the file is over this node's limit of \(maxBytes >> 20) MiB per file (\(maxBytes) bytes)")
    }

    /// Writes the body as it arrives, one buffer at a time, to a new file only its owner may read.
    /// Past `maxBytes` it stops and throws `UploadTooLarge`; the file is then never made visible.
    static func write(_ body: RequestBody, to path: String, maxBytes: Int64) async throws {
        try await FileSystem.shared.withFileHandle(
            forWritingAt: FilePath(path), options: .newFile(replaceExisting: false, permissions: .ownerReadWrite)
        ) { handle in
            var written: Int64 = 0
            for try await buffer in body {
                let offset = written
                written += Int64(buffer.readableBytes)
                guard written <= maxBytes else { throw UploadTooLarge() }
                try await handle.write(contentsOf: buffer, toAbsoluteOffset: offset)
            }
        }
    }

    // MARK: download

    /// `GET /api/files/CHAT/FILE` (any held file, to save) and `GET /api/pictures/CHAT/FILE` (a held
    /// picture of a type the page may show, to show): the bytes streamed from the node's disk.
    func serve(_ parameters: Parameters, context: some RequestContext, asPicture: Bool) async throws -> Response {
        let chat = parameters.get("chat") ?? "", file = parameters.get("file") ?? ""
        if asPicture {
            // The manifest's word first, so a file that is no picture is told so, held or not …
            do {
                if let refusal = Self.pictureRefusal(try service.fileView(chat: chat, file: file)) { return refusal }
            } catch { return WebResponses.error(error) }
        }
        let held: (path: String, view: FileView)
        do { held = try service.heldFile(chat: chat, file: file) } catch {
            return WebResponses.error(APIFailure(error))
        }
        // … then the type its bytes have, once they are here.
        if asPicture, let refusal = Self.pictureRefusal(held.view) { return refusal }
        let body = try await FileIO().loadFile(path: held.path, context: context, chunkLength: Self.chunkBytes)
        var headers = HTTPFields()
        headers[.contentType] = asPicture ? held.view.type : "application/octet-stream"
        headers[.contentDisposition] = ContentDisposition.value(
            asPicture ? "inline" : "attachment", name: held.view.name)
        headers[.xContentTypeOptions] = "nosniff"
        headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        // A chat's bytes: kept by no cache, not even this browser's.
        headers[.cacheControl] = "private, no-store"
        return Response(status: .ok, headers: headers, body: body)
    }

    static func pictureRefusal(_ view: FileView) -> Response? {
        guard !view.picture || !pictureTypes.contains(view.type) else { return nil }
        return WebResponses.error(
            status: .unsupportedMediaType, kind: WebErrorKind.invalid.rawValue,
            message:
                "file \(view.id.prefix(8)) is not a picture the page shows (\(view.type)): download it with GET /api/files/\(view.chat.prefix(16))/\(view.id.prefix(16))"
        )
    }
}

/// An upload past the node's per-file cap.
struct UploadTooLarge: Error {}
