import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ParleyAPI
@testable import ParleyHTTP
import ParleyNode
import Testing

/// Files over HTTP: `POST /api/upload` streams to a staging file that never outlives the request,
/// `GET /api/files/…` hands out held bytes to save and never to show, `GET /api/pictures/…` only
/// pictures a browser shows without running anything, and the path requests stay off HTTP.
struct FileRouteTests {
    /// A node with a file folder of its own (removed by `close`), a chat "Lunch" of just its user,
    /// and a cap of `maxFileBytes` per file.
    final class Bed: Sendable {
        let server: WebTestServer
        let folder: String

        init(maxFileBytes: Int64 = 1 << 20) async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "parley-files-\(UUID().uuidString)"
            ).path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            self.folder = folder
            server = try await WebTestServer.start(configure: {
                $0.files.directory = folder
                $0.files.maxFileBytes = maxFileBytes
            })
            let created = try await server.api("chatCreate", #"{"title":"Lunch","members":[]}"#)
            #expect(created.status == .ok)
        }

        deinit { try? FileManager.default.removeItem(atPath: folder) }

        var chat: String { get async throws { try await server.api("chatList").array.first?["id"] as? String ?? "" } }

        /// What the folder holds besides the held files (named by their ids): staging left behind.
        var leftovers: [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix(".") }
        }

        func upload(_ bytes: [UInt8], name: String, caption: String? = nil) async throws -> TestClient.Response {
            let chat = try await chat
            var path = "/api/upload?chat=\(chat)&name=\(Self.encoded(name))"
            if let caption { path += "&caption=\(Self.encoded(caption))" }
            return try await server.sendBytes(.post, path, bytes: bytes, bearer: server.token.hex)
        }

        static func encoded(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
        }
    }

    static let beach: [UInt8] = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return [UInt8]((try? Data(contentsOf: root.appendingPathComponent("samples/beach.jpg"))) ?? Data())
    }()

    static func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) } }

    @Test func anUploadIsSentAsAFileAndItsStagingFileIsGone() async throws {
        let bed = try await Bed()
        let bytes = Self.bytes(300_000)
        let sent = try await bed.upload(bytes, name: "notes.bin", caption: "for Friday")
        #expect(sent.status == .ok, "\(sent.text)")
        #expect(sent.object["name"] as? String == "notes.bin")
        #expect(sent.object["size"] as? Int == bytes.count)
        #expect(sent.object["caption"] as? String == "for Friday")
        #expect(sent.object["state"] as? String == "held")
        #expect(sent.object["picture"] as? Bool == false)
        #expect(bed.leftovers.isEmpty)
        // and it is a File message of the chat, with its file
        let listed = try await bed.server.api("messages", #"{"chat":"Lunch","limit":5}"#)
        let file = listed.array.first { $0["tag"] as? String == "File" }?["file"] as? [String: Any]
        #expect(file?["name"] as? String == "notes.bin")
    }

    @Test func anUploadOverTheCapIsRefusedWith413AndLeavesNothing() async throws {
        let bed = try await Bed(maxFileBytes: 64 << 10)
        let refused = try await bed.upload(Self.bytes((64 << 10) + 1), name: "big.bin")
        #expect(refused.status == .contentTooLarge)
        #expect(refused.errorKind == "tooLarge")
        #expect(refused.text.contains("limit"))
        #expect(bed.leftovers.isEmpty)
        #expect(try await bed.server.api("files", #"{"chat":"Lunch"}"#).text == "[]")
        // At the cap exactly, it goes.
        #expect(try await bed.upload(Self.bytes(64 << 10), name: "fits.bin").status == .ok)
        #expect(bed.leftovers.isEmpty)
    }

    @Test func aBodyCountedPastTheCapAsItStreamsStopsAndLeavesNoFile() async throws {
        let bed = try await Bed()
        let path = bed.folder + "/.upload-test"
        let body = RequestBody(buffer: ByteBuffer(bytes: Self.bytes(5_000)))
        await #expect(throws: UploadTooLarge.self) { try await FileRoutes.write(body, to: path, maxBytes: 4_999) }
        #expect(!FileManager.default.fileExists(atPath: path))
        // Within the cap: written, readable by its owner only.
        try await FileRoutes.write(RequestBody(buffer: ByteBuffer(bytes: Self.bytes(5_000))), to: path, maxBytes: 5_000)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(Self.bytes(5_000)))
    }

    @Test func anUploadNeedsAChatANameAndRawBytes() async throws {
        let bed = try await Bed()
        let token = bed.server.token.hex
        let unknown = try await bed.server.sendBytes(
            .post, "/api/upload?chat=nope&name=a.bin", bytes: [1], bearer: token)
        #expect(unknown.status == .notFound)
        let nameless = try await bed.server.sendBytes(.post, "/api/upload?chat=Lunch", bytes: [1], bearer: token)
        #expect(nameless.status == .badRequest)
        let form = try await bed.server.sendBytes(
            .post, "/api/upload?chat=Lunch&name=a.bin", bytes: [1], contentType: "multipart/form-data; boundary=x",
            bearer: token)
        #expect(form.status == .unsupportedMediaType)
        // Like every /api route: a login, and the served origin
        let anonymous = try await bed.server.sendBytes(.post, "/api/upload?chat=Lunch&name=a.bin", bytes: [1])
        #expect(anonymous.status == .unauthorized)
        let foreign = try await bed.server.sendBytes(
            .post, "/api/upload?chat=Lunch&name=a.bin", bytes: [1], bearer: token, origin: "http://evil.example")
        #expect(foreign.status == .forbidden)
        #expect(bed.leftovers.isEmpty)
        #expect(try await bed.server.api("files", #"{"chat":"Lunch"}"#).text == "[]")
    }

    @Test func aDownloadIsAnAttachmentNamedInUTF8ThatNoBrowserSniffsOrKeeps() async throws {
        let bed = try await Bed()
        let bytes = Self.bytes(200_000)
        let sent = try await bed.upload(bytes, name: "résumé \"final\".bin")
        let id = try #require(sent.object["id"] as? String)
        let chat = try await bed.chat
        let download = try await bed.server.send(
            .get, "/api/files/\(chat)/\(id.prefix(12))", bearer: bed.server.token.hex)
        #expect(download.status == .ok)
        #expect(download.body.map { Array($0.readableBytesView) } == bytes)
        #expect(download.headers[.contentType] == "application/octet-stream")
        #expect(download.headers[.contentLength] == String(bytes.count))
        let name = try #require(sent.object["name"] as? String)
        #expect(
            download.headers[.contentDisposition]
                == ContentDisposition.value("attachment", name: name))
        #expect(download.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"r_sum_ ") == true)
        #expect(download.headers[.contentDisposition]?.contains("filename*=UTF-8''r%C3%A9sum%C3%A9%20") == true)
        #expect(download.headers[.xContentTypeOptions] == "nosniff")
        #expect(download.headers[.cacheControl] == "private, no-store")
        #expect(download.headers[.contentSecurityPolicy] == "default-src 'none'; sandbox")
        #expect(download.headers[values: .contentSecurityPolicy].count == 1)
    }

    @Test func aDownloadNeedsALoginAndANameThatIsAFile() async throws {
        let bed = try await Bed()
        let sent = try await bed.upload(Self.bytes(10), name: "a.bin")
        let id = try #require(sent.object["id"] as? String)
        let chat = try await bed.chat
        #expect(try await bed.server.send(.get, "/api/files/\(chat)/\(id)").status == .unauthorized)
        let page = try await bed.server.asPage(.get, "/api/files/\(chat)/\(id)")
        #expect(page.status == .ok)
        // The cookie alone (an <img> or a link from another port of the host) opens nothing.
        let cookieOnly = try await bed.server.send(.get, "/api/files/\(chat)/\(id)", cookie: bed.server.page.cookie)
        #expect(cookieOnly.status == .unauthorized)
        let token = bed.server.token.hex
        let unknown = try await bed.server.send(.get, "/api/files/\(chat)/abcdef12", bearer: token)
        #expect(unknown.status == .notFound)
        #expect(unknown.errorKind == "notFound")
        let text = try await bed.server.api("send", #"{"chat":"Lunch","text":"not a file","refs":[]}"#)
        let textID = try #require(text.object["id"] as? String)
        #expect(try await bed.server.send(.get, "/api/files/\(chat)/\(textID)", bearer: token).status == .notFound)
        let posted = try await bed.server.send(.post, "/api/files/\(chat)/\(id)", bearer: token)
        #expect(posted.status == .methodNotAllowed)
        #expect(posted.headers[.allow] == "GET")
    }

    @Test func thePictureRouteServesAPictureInlineAndRefusesAnythingElse() async throws {
        let bed = try await Bed()
        let chat = try await bed.chat
        let token = bed.server.token.hex
        let other = try #require(try await bed.upload(Self.bytes(1_000), name: "notes.bin").object["id"] as? String)
        let refused = try await bed.server.send(.get, "/api/pictures/\(chat)/\(other)", bearer: token)
        #expect(refused.status == .unsupportedMediaType)
        #expect(refused.errorKind == "invalid")
        #expect(refused.text.contains("/api/files/"))

        let sent = try await bed.upload(Self.beach, name: "beach.jpg")
        #expect(sent.object["picture"] as? Bool == true, "\(sent.text)")
        let id = try #require(sent.object["id"] as? String)
        let picture = try await bed.server.send(.get, "/api/pictures/\(chat)/\(id)", bearer: token)
        #expect(picture.status == .ok)
        #expect(picture.headers[.contentType] == "image/jpeg")
        #expect(picture.headers[.contentDisposition]?.hasPrefix("inline; ") == true)
        #expect(picture.headers[.xContentTypeOptions] == "nosniff")
        #expect(picture.headers[.contentSecurityPolicy] == "default-src 'none'; sandbox")
        #expect(picture.headers[.cacheControl] == "private, no-store")
        #expect(picture.headers[.contentLength] == String(sent.object["size"] as? Int ?? -1))
    }

    @Test(arguments: ["fileSend", "fileSave"])
    func theRequestsNamingPathsOnTheNodesMachineAreRefusedOverHTTP(name: String) async throws {
        let bed = try await Bed()
        let response = try await bed.server.api(name, #"{"chat":"Lunch","path":"/etc/passwd","file":"ab","to":"/tmp"}"#)
        #expect(response.status == .forbidden)
        #expect(response.errorKind == "forbidden")
        #expect(response.text.contains("/api/upload"))
        #expect(try await bed.server.api("files", #"{"chat":"Lunch"}"#).text == "[]")
    }

    @Test func theFilesRequestStillAnswersBesideTheDownloadRoutes() async throws {
        let bed = try await Bed()
        _ = try await bed.upload(Self.bytes(10), name: "a.bin")
        let listed = try await bed.server.api("files", #"{"chat":"Lunch"}"#)
        #expect(listed.status == .ok)
        #expect(listed.array.first?["name"] as? String == "a.bin")
        #expect(try await bed.server.send(.get, "/api/files", bearer: bed.server.token.hex).status == .methodNotAllowed)
    }

    @Test func theAsciiFallbackAndTheEncodedNameCannotBreakOutOfTheHeader() {
        #expect(ContentDisposition.asciiFallback("a\"b\\c\u{7F}é.txt") == "a_b_c__.txt")
        #expect(ContentDisposition.percentEncoded("a b;é\"") == "a%20b%3B%C3%A9%22")
        #expect(
            ContentDisposition.value("attachment", name: "x.pdf")
                == "attachment; filename=\"x.pdf\"; filename*=UTF-8''x.pdf")
    }
}

extension TestClient.Response {
    /// The JSON body as an array of objects (a list result).
    var array: [[String: Any]] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[String: Any]] ?? []
    }
}
