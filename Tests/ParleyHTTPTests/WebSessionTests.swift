import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NIOWebSocket
import ParleyAPI
@testable import ParleyHTTP
import Synchronization
import Testing

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }

    var reading: @Sendable () -> Date { { [self] in now } }
}

/// Login codes, sessions, revoke, and what survives a restart: `WebAccess` with a hand-moved clock.
struct WebSessionTests {
    static let nodeKey = String(repeating: "ab", count: 32)
    static let address = WebAddress(host: "127.0.0.1", port: 8080)

    func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "parley-sessions-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func access(_ directory: String? = nil, clock: TestClock = TestClock()) throws -> WebAccess {
        let access = try WebAccess(dataDirectory: directory, nodeKey: Self.nodeKey, now: clock.reading)
        access.serve(Self.address)
        return access
    }

    func code(_ access: WebAccess) throws -> String {
        let url = try access.loginLink().url
        #expect(url.hasPrefix("http://127.0.0.1:8080/login?code="))
        return String(url.split(separator: "=").last ?? "")
    }

    @Test func aLoginCodeWorksOnceAndNotAfterAMinute() throws {
        let clock = TestClock()
        let access = try access(clock: clock)
        let code = try code(access)
        #expect(try access.redeem(code: code) != nil)
        #expect(try access.redeem(code: code) == nil)

        let late = try self.code(access)
        clock.advance(by: 61)
        #expect(try access.redeem(code: late) == nil)

        let inTime = try self.code(access)
        clock.advance(by: 59)
        #expect(try access.redeem(code: inTime) != nil)
        #expect(try access.redeem(code: String(repeating: "0", count: 64)) == nil)
        #expect(try access.redeem(code: "not hex") == nil)
    }

    @Test func aSessionLivesThirtyDaysPastItsLastUse() throws {
        let clock = TestClock()
        let access = try access(clock: clock)
        let session = try #require(try access.redeem(code: try code(access)))
        #expect(access.isLive(session))
        clock.advance(by: 29 * 86_400)
        #expect(access.isLive(session)) // used: 30 more days
        clock.advance(by: 29 * 86_400)
        #expect(access.isLive(session))
        clock.advance(by: 31 * 86_400)
        #expect(!access.isLive(session))
        // Each half alone, or another's halves mixed, is no session
        let other = try #require(try access.redeem(code: try code(access)))
        #expect(!access.isLive(WebSessionCredentials(id: other.id, proof: session.proof)))
        #expect(access.isLive(other))
    }

    @Test func sessionsOutliveARestartAndTheFileHoldsNoCredentials() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The first node runs in its own scope: it holds the directory's lock until it is gone.
        let (session, pending, token) = try {
            let first = try access(directory)
            return (try #require(try first.redeem(code: try code(first))), try code(first), first.token.hex)
        }()

        let restarted = try access(directory)
        #expect(restarted.isLive(session))
        #expect(restarted.token.hex == token)
        // A code is spent once, even across a restart: the restarted node never knew it
        #expect(try restarted.redeem(code: pending) == nil)

        let path = WebSessionFile.path(dataDirectory: directory)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let file = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!file.contains(session.id))
        #expect(!file.contains(session.proof))
    }

    @Test func revokingEndsEverySessionAndReplacesTheTokenAtOnceAndOnDisk() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sessions = try {
            let access = try access(directory)
            let old = access.token.hex
            let sessions = [try access.redeem(code: try code(access)), try access.redeem(code: try code(access))]
                .compactMap { $0 }
            let unused = try code(access)
            #expect(try access.revokeAll() == WebRevokeView(sessionsEnded: 2))
            #expect(sessions.allSatisfy { !access.isLive($0) })
            #expect(try access.redeem(code: unused) == nil)
            #expect(!access.token.matches(old))
            #expect(try WebToken.load(dataDirectory: directory).hex == access.token.hex)
            return sessions
        }()
        let restarted = try self.access(directory)
        #expect(sessions.allSatisfy { !restarted.isLive($0) })
    }

    @Test func revokingWithoutARunningNodeDoesTheSameOnTheFiles() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (session, token) = try {
            let stopped = try access(directory)
            return (try #require(try stopped.redeem(code: try code(stopped))), stopped.token.hex)
        }()
        #expect(try WebAccess.revokeOffline(dataDirectory: directory) == WebRevokeView(sessionsEnded: 1))
        let restarted = try access(directory)
        #expect(!restarted.isLive(session))
        #expect(!restarted.token.matches(token))
        let mode =
            try FileManager.default.attributesOfItem(atPath: WebToken.path(dataDirectory: directory))[.posixPermissions]
            as? Int
        #expect(mode == 0o600)
    }

    @Test func aRevokeOfTheFilesIsRefusedWhileANodeHoldsThem() throws {
        // Given a node that has read the token and the sessions (starting, or serving)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let running = try access(directory)
        let session = try #require(try running.redeem(code: try code(running)))

        // When the files are revoked behind its back, then the revoke is refused, and nothing changed
        #expect(throws: WebError.self) { try WebAccess.revokeOffline(dataDirectory: directory) }
        #expect(running.isLive(session))
        #expect(try WebToken.load(dataDirectory: directory).hex == running.token.hex)
        #expect(throws: WebError.self) { try WebAccess(dataDirectory: directory, nodeKey: Self.nodeKey) }
    }

    @Test func theCookieNameIsOneNodesOwnAndStable() throws {
        let other = String(repeating: "cd", count: 32)
        #expect(WebAccess.cookieName(nodeKey: Self.nodeKey) == "parley_abababababababab")
        #expect(WebAccess.cookieName(nodeKey: Self.nodeKey) != WebAccess.cookieName(nodeKey: other))
        #expect(try access().cookieName == access().cookieName)
    }

    /// Whether `whileLive` ended `body` (a socket that would stay open an hour) within 10 s of `end`.
    func socketEnds(
        _ access: WebAccess, session: WebSessionCredentials?, bearer: String?, end: @escaping @Sendable () -> Void
    ) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await access.whileLive(session, bearer: bearer) { try? await Task.sleep(for: .seconds(3_600)) }
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(100))
                end()
                try? await Task.sleep(for: .seconds(10))
                return false
            }
            defer { group.cancelAll() }
            return await group.next() ?? false
        }
    }

    @Test func aSocketEndsWhenItsExpiredSessionIsNextPresented() async throws {
        let clock = TestClock()
        let access = try access(clock: clock)
        let session = try #require(try access.redeem(code: try code(access)))
        let ended = await socketEnds(access, session: session, bearer: nil) {
            clock.advance(by: 31 * 86_400)
            _ = access.isLive(session)
        }
        #expect(ended)
    }

    @Test func aSocketOfferingATokenARevokeReplacedEndsAtOnce() async throws {
        let access = try access()
        let old = access.token.hex
        _ = try access.revokeAll()
        // As when the revoke comes between the front door's check and the socket's start.
        #expect(await socketEnds(access, session: nil, bearer: old) {})
    }

    @Test func concurrentRevokesLeaveOneTokenInTheNodeAndTheFile() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let access = try access(directory)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { for _ in 0..<20 { _ = try access.revokeAll() } } }
            try await group.waitForAll()
        }
        #expect(try WebToken.load(dataDirectory: directory).hex == access.token.hex)
    }
}

/// The same over HTTP: logout, the owner's requests, and a WebSocket whose session ends.
struct WebSessionRouteTests {
    @Test func logoutEndsTheSessionAndClearsTheCookie() async throws {
        let server = try await WebTestServer.start()
        #expect(try await server.asPage(.post, "/api/chatList", body: "{}").status == .ok)
        // The cookie without the proof (another local server's copy) cannot log the user out
        #expect(try await server.send(.post, "/logout", cookie: server.page.cookie).status == .noContent)
        #expect(try await server.asPage(.post, "/api/chatList", body: "{}").status == .ok)

        let logout = try await server.asPage(.post, "/logout")
        #expect(logout.status == .noContent)
        #expect(
            logout.headers[.setCookie] == "\(server.access.cookieName)=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0")
        #expect(try await server.asPage(.post, "/api/chatList", body: "{}").status == .unauthorized)
        // A page from elsewhere cannot log anyone out
        #expect(try await server.send(.post, "/logout", origin: "http://evil.example").status == .forbidden)
    }

    @Test(arguments: ["webLogin", "webRevoke"])
    func theOwnersRequestsAreRefusedOverHTTP(name: String) async throws {
        let server = try await WebTestServer.start()
        let token = server.token.hex
        for response in [try await server.api(name), try await server.asPage(.post, "/api/\(name)", body: "{}")] {
            #expect(response.status == .forbidden)
            #expect(response.text.contains("parley web"))
        }
        #expect(server.token.matches(token))
    }

    @Test func theOwnersRequestsGoToTheWebAppOverTheDispatcher() async throws {
        let server = try await WebTestServer.start()
        var service = server.service
        #expect(await service.respond(to: .webLogin).contains(#""kind":"unavailable""#))
        service.web = server.access
        #expect(await service.respond(to: .webLogin).contains("/login?code="))
        #expect(await service.respond(to: .webRevoke).contains(#""sessionsEnded":1"#))
        #expect(try await server.asPage(.post, "/api/chatList", body: "{}").status == .unauthorized)
    }

    /// Reads until the server closes the socket; nil when it was still open after `seconds`.
    func closeCode(of inbound: NIOAsyncChannelInboundStream<WebSocketFrame>, within seconds: Int) async throws
        -> WebSocketErrorCode?
    {
        try await withThrowingTaskGroup(of: WebSocketErrorCode?.self) { group in
            group.addTask {
                for try await frame in inbound where frame.opcode == .connectionClose {
                    var data = frame.unmaskedData
                    return data.readWebSocketErrorCode() ?? .normalClosure
                }
                return .normalClosure // the connection ended
            }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    @Test(arguments: [false, true])
    func anOpenWebSocketClosesWhenItsSessionEnds(byRevoke: Bool) async throws {
        let server = try await WebTestServer.start()
        let closed = try await BrowserLikeWebSocket.connect(
            port: server.address.port, host: server.host, origin: "http://\(server.host)", cookie: server.page.cookie,
            proof: server.page.proof
        ) { inbound, _ in
            if byRevoke {
                _ = try server.access.revokeAll()
            } else {
                #expect(try await server.asPage(.post, "/logout").status == .noContent)
            }
            return try await closeCode(of: inbound, within: 10)
        }
        #expect(closed != nil)
    }

    @Test func aSocketOpenedWithTheTokenClosesAtARevoke() async throws {
        let server = try await WebTestServer.start()
        let closed = try await BrowserLikeWebSocket.connect(
            port: server.address.port, host: server.host, origin: nil, cookie: nil, bearer: server.token.hex
        ) { inbound, _ in
            _ = try server.access.revokeAll()
            return try await closeCode(of: inbound, within: 10)
        }
        #expect(closed != nil)
    }

    @Test func anotherSessionsLogoutLeavesThisSocketOpen() async throws {
        let server = try await WebTestServer.start()
        let other = try await server.logIn()
        let stillOpen = try await BrowserLikeWebSocket.connect(
            port: server.address.port, host: server.host, origin: "http://\(server.host)", cookie: server.page.cookie,
            proof: server.page.proof
        ) { inbound, outbound in
            #expect(try await server.asPage(.post, "/logout", login: other).status == .noContent)
            try await outbound.write(BrowserLikeWebSocket.text("{}"))
            for try await frame in inbound where frame.opcode == .text { return true }
            return false
        }
        #expect(stillOpen)
    }
}
