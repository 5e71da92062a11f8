import Foundation
import ParleyControlSocket
import Testing

@Suite(.timeLimit(.minutes(3))) final class LineServerTests {
    /// Each test gets its own directory for the socket, removed afterwards.
    private let socket: TemporarySocket
    private var path: String { socket.path }

    init() throws { socket = try TemporarySocket() }

    @Test func exchangesLinesBothWays() async throws {
        // The handler echoes each line upper-cased, then says goodbye when the client is done.
        let server = try await LineServer.start(path: path) { connection in
            do {
                for try await line in connection.lines {
                    try await connection.send(line.uppercased())
                }
                try await connection.send("bye")
            } catch {}
        }

        try await withThrowingTaskGroup { group in
            group.addTask { try await server.run() }

            let client = try await LineClient.connect(path: path)
            let sent = ["{\"op\":\"status\"}", "", "héllo wörld", "with\rcarriage"]
            for line in sent { try await client.send(line) }
            var replies = client.lines.makeAsyncIterator()
            var received: [String] = []
            for _ in sent { received.append(try await replies.next() ?? "<end>") }
            #expect(received == ["{\"OP\":\"STATUS\"}", "", "HÉLLO WÖRLD", "WITH\rCARRIAGE"])

            await client.close()
            await server.close()
            try await group.waitForAll()
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func servesSeveralClientsAtOnce() async throws {
        let path = self.path
        let server = try await LineServer.start(path: path) { connection in
            do {
                for try await line in connection.lines { try await connection.send("echo " + line) }
            } catch {}
        }
        try await withThrowingTaskGroup { group in
            group.addTask { try await server.run() }
            try await withThrowingTaskGroup { clients in
                for index in 0..<5 {
                    clients.addTask {
                        let client = try await LineClient.connect(path: path)
                        var replies = client.lines.makeAsyncIterator()
                        for round in 0..<20 {
                            try await client.send("\(index)-\(round)")
                            #expect(try await replies.next() == "echo \(index)-\(round)")
                        }
                        await client.close()
                    }
                }
                try await clients.waitForAll()
            }
            await server.close()
        }
    }

    @Test func makesTheSocketOwnerOnly() async throws {
        let server = try await LineServer.start(path: path) { _ in }

        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(attributes[.type] as? FileAttributeType == .typeSocket)
        await server.close()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func dropsAConnectionThatSendsATooLongLine() async throws {
        let (failures, failed) = AsyncStream.makeStream(of: String.self)
        let server = try await LineServer.start(path: path) { connection in
            do {
                for try await _ in connection.lines {}
                failed.yield("ended without error")
            } catch {
                failed.yield(String(describing: error))
            }
        }

        try await withThrowingTaskGroup { group in
            group.addTask { try await server.run() }

            let client = try #require(RawUnixSocket(path: path))
            // 1 MiB plus one byte with no newline: the server must give up rather than keep buffering.
            _ = client.write(Array(repeating: UInt8(ascii: "a"), count: (1 << 20) + 1))
            var reasons = failures.makeAsyncIterator()
            #expect(await reasons.next() == "line longer than 1048576 bytes")
            #expect(await client.readToEnd().isEmpty, "the server closes the connection")

            // The server itself keeps serving.
            let next = try await LineClient.connect(path: path)
            try await next.send("fine")
            await next.close()
            #expect(await reasons.next() == "ended without error")

            await server.close()
            try await group.waitForAll()
        }
    }

    @Test func refusesToSendALineTheOtherSideWouldReject() async throws {
        let server = try await LineServer.start(path: path) { _ in }
        try await withThrowingTaskGroup { group in
            group.addTask { try await server.run() }
            let client = try await LineClient.connect(path: path)

            let tooLong = await #expect(throws: ControlSocketError.self) {
                try await client.send(String(repeating: "a", count: (1 << 20) + 1))
            }
            #expect(tooLong?.isLineTooLong == true)
            await #expect(throws: ControlSocketError.self) { try await client.send("two\nlines") }

            await client.close()
            await server.close()
        }
    }

    @Test func answersWithALineFarLongerThanARequestMayBe() async throws {
        // Given a server that answers each request with a 3 MiB line (a long chat history, say)
        let history = String(repeating: "m", count: 3 << 20)
        let server = try await LineServer.start(path: path) { connection in
            do {
                for try await _ in connection.lines { try await connection.send(history) }
            } catch {}
        }
        try await withThrowingTaskGroup { group in
            group.addTask { try await server.run() }
            let client = try await LineClient.connect(path: path)

            // When the client asks
            try await client.send("{\"messages\":{}}")

            // Then the whole answer arrives, though a request of that size would be refused
            var replies = client.lines.makeAsyncIterator()
            #expect(try await replies.next()?.utf8.count == history.utf8.count)
            await #expect(throws: ControlSocketError.self) { try await client.send(history) }

            await client.close()
            await server.close()
        }
    }

    @Test func explainsAMissingSocket() async throws {
        let error = await #expect(throws: ControlSocketError.self) {
            _ = try await LineClient.connect(path: path)
        }
        #expect(error?.description == "cannot connect to \(path): no such file or directory")
    }

    @Test func explainsASocketPathTooLongForTheSystem() async throws {
        let path = "/tmp/" + String(repeating: "d", count: 120) + "/node.sock"
        let listening = await #expect(throws: ControlSocketError.self) {
            _ = try await LineServer.start(path: path) { _ in }
        }
        #expect(listening?.description.contains("socket path is too long") == true)
        let connecting = await #expect(throws: ControlSocketError.self) {
            _ = try await LineClient.connect(path: path)
        }
        #expect(connecting?.description.contains("socket path is too long") == true)
    }

    @Test func explainsASocketNobodyListensOn() async throws {
        try leaveStaleSocket(at: path)

        let error = await #expect(throws: ControlSocketError.self) {
            _ = try await LineClient.connect(path: path)
        }
        #expect(error?.description == "cannot connect to \(path): connection refused")
    }

    @Test func replacesAStaleSocketFile() async throws {
        try leaveStaleSocket(at: path)
        #expect(FileManager.default.fileExists(atPath: path))

        let server = try await LineServer.start(path: path) { _ in }
        let client = try await LineClient.connect(path: path)
        await client.close()
        await server.close()
    }

    @Test func refusesAPathInUseByALiveServer() async throws {
        let first = try await LineServer.start(path: path) { _ in }

        let error = await #expect(throws: ControlSocketError.self) {
            _ = try await LineServer.start(path: path) { _ in }
        }
        #expect(error?.description == "cannot listen on \(path): another process is already listening there")
        // The live server's socket is untouched.
        let client = try await LineClient.connect(path: path)
        await client.close()
        await first.close()
    }

    @Test func refusesToReplaceAFileThatIsNotASocket() async throws {
        #expect(FileManager.default.createFile(atPath: path, contents: Data("keep me".utf8)))

        await #expect(throws: ControlSocketError.self) {
            _ = try await LineServer.start(path: path) { _ in }
        }
        #expect(FileManager.default.contents(atPath: path) == Data("keep me".utf8))
    }

    @Test func runEndsWhenCancelledEvenWithAConnectionOpen() async throws {
        let server = try await LineServer.start(path: path) { connection in
            do { for try await _ in connection.lines {} } catch {}
        }
        let running = Task { try await server.run() }
        let client = try await LineClient.connect(path: path)
        try await client.send("hello")

        running.cancel()
        try await running.value
        #expect(!FileManager.default.fileExists(atPath: path))
        // The open connection was closed: its lines end, or fail with a reset if "hello" was still unread.
        var received: [String] = []
        do {
            for try await line in client.lines { received.append(line) }
        } catch {}
        #expect(received.isEmpty)
        await client.close()
    }
}
