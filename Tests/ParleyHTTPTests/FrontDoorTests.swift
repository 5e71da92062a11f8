import Foundation
import HTTPTypes
import HummingbirdTesting
import ParleyAPI
import ParleyHTTP
import ParleyWebApp
import ParleyNode
import ParleyCore
import ParleyCrypto
import Testing

/// The front door: the token, the Host and Origin checks, and the headers on every response.
struct FrontDoorTests {
    @Test func anAPIRequestWithoutTheTokenIsRefused() async throws {
        let server = try await WebTestServer.start()
        let bare = try await server.send(.post, "/api/chatList", body: "{}")
        #expect(bare.status == .unauthorized)
        #expect(bare.errorKind == "unauthorized")
        let wrongBearer = try await server.send(
            .post, "/api/chatList", body: "{}", bearer: String(repeating: "0", count: 64))
        #expect(wrongBearer.status == .unauthorized)
        let wrongCookie = try await server.send(
            .post, "/api/chatList", body: "{}",
            cookie: "\(server.access.cookieName)=\(String(repeating: "a", count: 64))",
            headers: [.authorization: "Session \(server.page.proof)"])
        #expect(wrongCookie.status == .unauthorized)
        // and nothing was created by the refused requests' bodies
        let refusedCreate = try await server.send(.post, "/api/chatCreate", body: #"{"title":"x","members":[]}"#)
        #expect(refusedCreate.status == .unauthorized)
        #expect(try server.node.chats().isEmpty)
    }

    @Test func theLoginSetsAnHttpOnlyStrictCookieThatOpensTheAPIOnlyWithTheProof() async throws {
        let server = try await WebTestServer.start()
        let link = try server.access.loginLink()
        #expect(link.url.hasPrefix("http://\(server.host)/login?code="))
        let login = try await server.send(.get, String(link.url.dropFirst("http://\(server.host)".count)))
        #expect(login.status == .ok)
        #expect(login.headers[.cacheControl] == "no-store")
        let cookie = try #require(login.headers[.setCookie])
        let id = try #require(cookie.split(separator: ";").first?.split(separator: "=").last)
        #expect(cookie == "\(server.access.cookieName)=\(id); HttpOnly; SameSite=Strict; Path=/; Max-Age=34560000")
        // Neither the cookie nor the page holds the token
        #expect(!cookie.contains(server.token.hex))
        #expect(!login.text.contains(server.token.hex))
        // The answer is the page itself, the proof in its head, so no second navigation comes before the first screen
        #expect(login.text.contains(#"<meta name="parley-session-proof" content=""#))
        #expect(login.text.contains(#"<script type="module" src="/app.js"></script>"#))

        let session = try await server.logIn()
        let listed = try await server.send(
            .post, "/api/chatList", body: "{}", cookie: "theme=dark; \(session.cookie)",
            headers: [.authorization: "Session \(session.proof)"])
        #expect(listed.status == .ok)
        #expect(listed.text == "[]")
        // The cookie alone (what every other server on 127.0.0.1 receives) opens nothing; nor does the proof alone
        #expect(
            try await server.send(.post, "/api/chatList", body: "{}", cookie: session.cookie).status == .unauthorized)
        #expect(
            try await server.send(
                .post, "/api/chatList", body: "{}", headers: [.authorization: "Session \(session.proof)"]
            ).status == .unauthorized)
        let sessionID = String(session.cookie.split(separator: "=")[1])
        #expect(try await server.send(.post, "/api/chatList", body: "{}", bearer: sessionID).status == .unauthorized)
    }

    @Test func aWrongUsedOrMissingLoginCodeGetsAPageSayingWhatToDoAndNoCookie() async throws {
        let server = try await WebTestServer.start()
        let link = try server.access.loginLink()
        let path = String(link.url.dropFirst("http://\(server.host)".count))
        #expect(try await server.send(.get, path).status == .ok)
        for path in [
            path, "/login?code=\(String(repeating: "f", count: 64))", "/login", "/login?code=",
            "/login?token=\(server.token.hex)",
        ] {
            let response = try await server.send(.get, path)
            #expect(response.status == .forbidden)
            #expect(response.headers[.setCookie] == nil)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            #expect(response.text.contains("parley web"))
            #expect(!response.text.contains("{"))
        }
    }

    @Test(arguments: ["evil.example:80", "127.0.0.1:1", "attacker.test", ""])
    func aForeignHostIsRefusedEvenWithTheToken(host: String) async throws {
        let server = try await WebTestServer.start()
        let response = try await server.send(.post, "/api/chatList", body: "{}", host: host, bearer: server.token.hex)
        #expect(response.status == .forbidden)
        let page = try await server.send(.get, "/", host: host)
        #expect(page.status == .forbidden)
    }

    @Test func localhostIsAcceptedForALoopbackServer() async throws {
        let server = try await WebTestServer.start()
        let response = try await server.send(
            .post, "/api/chatList", body: "{}", host: "localhost:\(server.address.port)", bearer: server.token.hex)
        #expect(response.status == .ok)
    }

    @Test func aForeignOriginIsRefusedAndTheServedOneAccepted() async throws {
        let server = try await WebTestServer.start()
        let foreign = try await server.send(
            .post, "/api/chatList", body: "{}", origin: "http://evil.example", bearer: server.token.hex)
        #expect(foreign.status == .forbidden)
        let https = try await server.send(
            .post, "/api/chatList", body: "{}", origin: "https://\(server.host)", bearer: server.token.hex)
        #expect(https.status == .forbidden)
        let own = try await server.send(
            .post, "/api/chatList", body: "{}", origin: "http://\(server.host)", bearer: server.token.hex)
        #expect(own.status == .ok)
    }

    @Test func aRefusedWebSocketHandshakeGetsTheSameJSONRefusal() async throws {
        let server = try await WebTestServer.start()
        var upgrade = HTTPFields()
        upgrade[.connection] = "Upgrade"
        upgrade[.upgrade] = "websocket"
        upgrade[HTTPField.Name("Sec-WebSocket-Key")!] = "dGhlIHNhbXBsZSBub25jZQ=="
        upgrade[HTTPField.Name("Sec-WebSocket-Version")!] = "13"
        let noToken = try await server.send(.get, "/api/ws", origin: "http://\(server.host)", headers: upgrade)
        #expect(noToken.status == .unauthorized)
        #expect(noToken.errorKind == "unauthorized")
        let foreignOrigin = try await server.send(
            .get, "/api/ws", origin: "http://evil.example", bearer: server.token.hex, headers: upgrade)
        #expect(foreignOrigin.status == .forbidden)
        #expect(foreignOrigin.errorKind == "forbidden")
        let foreignHost = try await server.send(
            .get, "/api/ws", host: "evil.example", bearer: server.token.hex, headers: upgrade)
        #expect(foreignHost.status == .forbidden)
        #expect(foreignHost.headers[.contentSecurityPolicy] != nil)
    }

    @Test func theWebSocketRouteWithoutAnUpgradeGetsTheSameChecks() async throws {
        let server = try await WebTestServer.start()
        #expect(try await server.send(.get, "/api/ws").status == .unauthorized)
        #expect(
            try await server.send(.get, "/api/ws", origin: "http://evil.example", bearer: server.token.hex).status
                == .forbidden)
        #expect(
            try await server.send(.get, "/api/ws", host: "evil.example", bearer: server.token.hex).status == .forbidden)
        #expect(try await server.send(.get, "/api/ws", bearer: server.token.hex).status.code == 426)
    }

    @Test func everyResponseCarriesTheSecurityHeaders() async throws {
        let server = try await WebTestServer.start()
        let responses = [
            try await server.send(.get, "/"),
            try await server.send(.get, "/app.js"),
            try await server.send(.get, "/no-such-file"),
            try await server.send(.post, "/api/chatList", body: "{}"),
            try await server.api("chatList"),
            try await server.send(.get, "/", host: "evil.example"),
            try await server.send(.get, "/login?code=nope"),
            try await server.send(.post, "/logout"),
        ]
        for response in responses {
            #expect(
                response.headers[.contentSecurityPolicy] == """
                    default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; \
                    base-uri 'none'; form-action 'self'; frame-ancestors 'none'
                    """)
            #expect(response.headers[.xContentTypeOptions] == "nosniff")
            #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
        }
    }

    @Test func thePageIsServedWithoutTheTokenAndHasNoInlineScriptOrStyle() async throws {
        let server = try await WebTestServer.start()
        let page = try await server.send(.get, "/")
        #expect(page.status == .ok)
        #expect(page.headers[.contentType] == "text/html; charset=utf-8")
        #expect(page.text.contains(#"<script type="module" src="/app.js"></script>"#))
        // Every script is a file (script-src 'self' would block an inline one anyway)
        #expect(!page.text.contains("<script>"))
        #expect(!page.text.contains("style="))
        #expect(!page.text.contains("<style"))
        let script = try await server.send(.get, "/app.js")
        #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
    }
}

/// The page's own files: nothing that turns a string into markup or code, so a peer's text can only
/// ever be text (the Content-Security-Policy forbids inline script as a second line).
struct PageAssetTests {
    @Test func noScriptBuildsMarkupOrCodeFromStrings() throws {
        let catalog = try WebAssetCatalog.bundled()
        let scripts = catalog.paths.filter { $0.hasSuffix(".js") }
        #expect(scripts.contains("/app.js") && scripts.contains("/js/dom.js") && scripts.contains("/js/polls.js"))
        for path in scripts {
            let source = String(decoding: try #require(catalog.asset(at: path)).bytes, as: UTF8.self)
            for sink in [
                "innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
                "setAttribute(\"on",
            ] {
                #expect(!source.contains(sink), "\(path) uses \(sink)")
            }
        }
    }

    @Test func everyFileHasItsTypeAndOnlyCatalogPathsAreServed() throws {
        let catalog = try WebAssetCatalog.bundled()
        #expect(catalog.asset(at: "/")?.contentType == "text/html; charset=utf-8")
        #expect(catalog.asset(at: "/style.css")?.contentType == "text/css; charset=utf-8")
        #expect(catalog.asset(at: "/favicon.svg")?.contentType == "image/svg+xml")
        #expect(catalog.asset(at: "/../Package.swift") == nil)
        #expect(catalog.asset(at: "/js/../app.js") == nil)
    }
}
