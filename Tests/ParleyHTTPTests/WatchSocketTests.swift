import Foundation
import HTTPTypes
import NIOCore
import NIOWebSocket
import Logging
import ParleyAPI
import ParleyHTTP
import ParleyNode
import ParleyCore
import ParleyCrypto
import Synchronization
import Testing

/// The page's one WebSocket: watch commands in, `{"chat","event"}` frames out.
struct WatchSocketTests {
    /// Connects as the page does (its Host and Origin, the session cookie), sends `commands`, runs
    /// `action`, then collects the text frames until `done` holds for them (or 10 s pass), and hangs up.
    func collect(
        on server: WebTestServer, commands: [String], then action: @escaping @Sendable () async throws -> Void = {},
        until done: @escaping @Sendable ([String]) -> Bool
    ) async throws -> [String] {
        let frames = FrameLog()
        try await BrowserLikeWebSocket.connect(
            port: server.address.port, host: server.host, origin: "http://\(server.host)", cookie: server.page.cookie,
            proof: server.page.proof
        ) { inbound, outbound in
            for command in commands { try await outbound.write(BrowserLikeWebSocket.text(command)) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await frame in inbound where frame.opcode == .text {
                        if frames.append(String(buffer: frame.unmaskedData), done: done) { return }
                    }
                }
                group.addTask {
                    try await action()
                    try await Task.sleep(for: .seconds(10))
                }
                _ = try await group.next()
                group.cancelAll()
            }
        }
        return frames.all
    }

    static func events(_ frames: [String]) -> [[String: Any]] {
        frames.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    @Test func aMessageSentInAWatchedChatIsStreamed() async throws {
        let server = try await WebTestServer.start()
        let chat = try await server.node.createChat(title: "Lunch", members: [])
        _ = try await server.api("send", #"{"chat":"Lunch","text":"before","tag":null,"refs":[]}"#)

        let frames = try await collect(
            on: server, commands: [#"{"watch":{"chat":"\#(chat.id.hex)"}}"#],
            then: {
                try await Task.sleep(for: .milliseconds(300))
                _ = try await server.api(
                    "send", #"{"chat":"Lunch","text":"<img src=x onerror=alert(1)>","tag":null,"refs":[]}"#)
            }, until: { $0.contains { $0.contains("onerror") } })

        let events = Self.events(frames)
        #expect(events.allSatisfy { $0["chat"] as? String == chat.id.hex })
        let texts = events.compactMap {
            (($0["event"] as? [String: Any])?["message"] as? [String: Any])?["text"] as? String
        }
        #expect(texts == ["before", "<img src=x onerror=alert(1)>"])
    }

    @Test func aPollVoteIsStreamedAsTheTally() async throws {
        let server = try await WebTestServer.start()
        let chat = try await server.node.createChat(title: "Lunch", members: [])
        let poll = try await server.api("pollCreate", #"{"chat":"Lunch","question":"Pizza?"}"#)
        let pollID = try #require(poll.object["id"] as? String)

        let frames = try await collect(
            on: server, commands: [#"{"watch":{"chat":"\#(chat.id.hex)"}}"#],
            then: {
                try await Task.sleep(for: .milliseconds(300))
                _ = try await server.api("pollVote", #"{"chat":"Lunch","poll":"\#(pollID)","choices":["up"]}"#)
            }, until: { $0.contains { $0.contains(#""up":1"#) } })

        let polls = Self.events(frames).compactMap { ($0["event"] as? [String: Any])?["poll"] as? [String: Any] }
        #expect(polls.first?["up"] as? Int == 0)
        #expect(polls.last?["up"] as? Int == 1)
    }

    @Test func badCommandsAndUnknownChatsAreAnsweredOnTheSocket() async throws {
        let server = try await WebTestServer.start()
        let frames = try await collect(
            on: server, commands: ["hello", #"{"watch":{"chat":"no such chat"}}"#], until: { $0.count >= 2 })
        let events = Self.events(frames)
        #expect((events.first?["error"] as? [String: Any])?["kind"] as? String == "invalid")
        #expect(events.last?["chat"] as? String == "no such chat")
        #expect((events.last?["error"] as? [String: Any])?["kind"] as? String == "notFound")
    }

    @Test func atMost32ChatsAreWatchedOnOneSocket() async throws {
        let server = try await WebTestServer.start()
        var ids: [String] = []
        for index in 0...WatchLimit.count {
            ids.append(try await server.node.createChat(title: "Chat \(index)", members: []).id.hex)
        }
        let commands = ids.map { #"{"watch":{"chat":"\#($0)"}}"# }
        let frames = try await collect(
            on: server, commands: commands,
            until: { frames in
                frames.contains { $0.contains(#""error""#) }
            })
        let refused = Self.events(frames).filter { $0["error"] != nil }
        #expect(refused.count == 1)
        #expect(refused.first?["chat"] as? String == ids.last)
    }
}

/// What the page may send: a command's size limit, and a watch that leaves the read marker to the page.
struct WatchSocketCommandTests {
    /// Sends `command` as the page would, then reads every frame up to the server's close (10 s at most).
    func framesUntilClose(on server: WebTestServer, command: String) async throws -> (
        texts: [String], closeCode: WebSocketErrorCode?
    ) {
        try await BrowserLikeWebSocket.connect(
            port: server.address.port, host: server.host, origin: "http://\(server.host)", cookie: server.page.cookie,
            proof: server.page.proof
        ) { inbound, outbound in
            try await outbound.write(BrowserLikeWebSocket.text(command))
            return try await withThrowingTaskGroup(of: ([String], WebSocketErrorCode?).self) { group in
                group.addTask {
                    var texts: [String] = []
                    for try await frame in inbound {
                        switch frame.opcode {
                        case .text: texts.append(String(buffer: frame.unmaskedData))
                        case .connectionClose:
                            var data = frame.unmaskedData
                            return (texts, data.readWebSocketErrorCode())
                        default: continue
                        }
                    }
                    return (texts, nil)
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(10))
                    return ([], nil)
                }
                let first = try await group.next() ?? ([], nil)
                group.cancelAll()
                return first
            }
        }
    }

    @Test func aCommandOverFourKiBGetsAnErrorFrameNamingTheLimitThenACleanClose() async throws {
        let server = try await WebTestServer.start()
        let command = #"{"watch":{"chat":""# + String(repeating: "a", count: 5 * 1024) + #""}}"#
        let (texts, closeCode) = try await framesUntilClose(on: server, command: command)
        let error = try #require(WatchSocketTests.events(texts).first?["error"] as? [String: Any])
        #expect(error["kind"] as? String == "invalid")
        #expect((error["message"] as? String)?.contains("at most 4096 bytes") == true)
        #expect(closeCode == .messageTooLarge)
    }

    @Test func aCommandOfFourKiBIsStillACommand() async throws {
        let server = try await WebTestServer.start()
        let chat = String(repeating: "z", count: 4_096 - #"{"watch":{"chat":""}}"#.utf8.count)
        let frames = try await WatchSocketTests().collect(
            on: server, commands: [#"{"watch":{"chat":"\#(chat)"}}"#], until: { !$0.isEmpty })
        let answer = try #require(WatchSocketTests.events(frames).first)
        #expect(answer["chat"] as? String == chat)
        #expect((answer["error"] as? [String: Any])?["kind"] as? String == "notFound")
    }

    @Test func aWatchWithMarksReadFalseLeavesTheReadMarkerWhereItWas() async throws {
        let server = try await WebTestServer.start()
        let chat = try await server.node.createChat(title: "Lunch", members: [])
        for text in ["one", "two", "three"] {
            _ = try await server.api("send", #"{"chat":"Lunch","text":"\#(text)","tag":null,"refs":[]}"#)
        }
        let before = try server.node.readMarker(chat: chat.id)
        /// Watches with `command`, then sends `later` and waits for it: a watch that marks read has
        /// marked the backlog by then (it marks each batch before waiting for the next).
        func watchPastTheBacklog(_ command: String, later: String) async throws {
            let frames = try await WatchSocketTests().collect(
                on: server, commands: [command],
                then: {
                    _ = try await server.api("send", #"{"chat":"Lunch","text":"\#(later)","tag":null,"refs":[]}"#)
                }, until: { $0.contains { $0.contains(#""\#(later)""#) } })
            #expect(frames.contains { $0.contains(#""three""#) })
        }
        try await watchPastTheBacklog(#"{"watch":{"chat":"\#(chat.id.hex)","marksRead":false}}"#, later: "four")
        #expect(try server.node.readMarker(chat: chat.id) == before)
        // The default watch (the CLI's) still counts what it streamed as read.
        try await watchPastTheBacklog(#"{"watch":{"chat":"\#(chat.id.hex)"}}"#, later: "five")
        #expect(try server.node.readMarker(chat: chat.id) > before)
    }
}

enum WatchLimit {
    static let count = 32
}

/// The frames one test's socket received, shared with its reading task.
final class FrameLog: Sendable {
    private let frames = Mutex<[String]>([])

    /// Appends a frame; whether `done` now holds for all of them.
    func append(_ frame: String, done: ([String]) -> Bool) -> Bool {
        frames.withLock {
            $0.append(frame); return done($0)
        }
    }

    var all: [String] { frames.withLock { $0 } }
}

struct WatchSocketHandshakeTests {
    @Test func theHandshakeNeedsTheTokenTheHostAndTheOrigin() async throws {
        let server = try await WebTestServer.start()
        let good = server.page.cookie, proof = server.page.proof, page = "http://\(server.host)"
        // The page's own handshake opens the socket
        let opened = try await BrowserLikeWebSocket.connect(
            port: server.address.port, host: server.host, origin: page, cookie: good, proof: proof
        ) { _, _ in true }
        #expect(opened)
        // Without the token, from another origin, or for another host, it stays HTTP (no 101)
        for (host, origin, cookie) in [
            (server.host, page, nil), (server.host, "http://evil.example", good),
            ("evil.example:80", "http://evil.example:80", good),
            (server.host, page, "\(server.access.cookieName)=\(String(repeating: "0", count: 64))"),
        ] {
            await #expect(throws: BrowserLikeWebSocket.Failure.self) {
                try await BrowserLikeWebSocket.connect(
                    port: server.address.port, host: host, origin: origin, cookie: cookie, proof: proof
                ) { _, _ in () }
            }
        }
    }
}
