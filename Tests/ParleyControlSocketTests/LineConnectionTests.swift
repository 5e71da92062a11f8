import Foundation
import ParleyControlSocket
import Testing

// A net for hangs, wider than the whole in-process run: a consumer that falls behind takes a hop of
// the cooperative pool per line, and with every suite running beside it, it finishes last.
@Suite(.timeLimit(.minutes(10))) final class LineConnectionTests {
    /// Each test gets its own directory for the socket, removed afterwards.
    private let socket: TemporarySocket
    private var path: String { socket.path }

    init() throws { socket = try TemporarySocket() }

    /// Starts a server whose handler reports every line it gets, then answers "got N" once input ends.
    private func startCountingServer(path: String) async throws -> (LineServer, AsyncStream<[String]>) {
        let (reports, report) = AsyncStream.makeStream(of: [String].self)
        let server = try await LineServer.start(path: path) { connection in
            var lines: [String] = []
            do {
                for try await line in connection.lines { lines.append(line) }
                try await connection.send("got \(lines.count)")
            } catch {}
            report.yield(lines)
        }
        return (server, reports)
    }

    @Test func readsOneAnswerPerRequestInSeparateLoops() async throws {
        let server = try await LineServer.start(path: path) { connection in
            do {
                for try await line in connection.lines { try await connection.send("echo " + line) }
            } catch {}
        }
        try await withThrowingTaskGroup { group in
            group.addTask { try await server.run() }
            let client = try await LineClient.connect(path: path)

            // The request/response pattern of a command-line client: a fresh loop per answer.
            for word in ["alpha", "beta", "gamma"] {
                try await client.send(word)
                var answer: String?
                for try await line in client.lines {
                    answer = line
                    break
                }
                #expect(answer == "echo " + word)
            }
            await client.close()
            await server.close()
        }
    }

    @Test func deliversEveryLineToAConsumerThatFallsBehind() async throws {
        let count = 2_000
        let server = try await LineServer.start(path: path) { connection in
            // 500 KB: far more than the socket buffers hold (about 200 KB each way), so both sides have
            // to pace themselves.
            for index in 0..<count {
                guard (try? await connection.send("line \(index) " + String(repeating: "x", count: 250))) != nil
                else { return }
            }
        }
        try await withThrowingTaskGroup { group in
            group.addTask { try await server.run() }
            let client = try await LineClient.connect(path: path)

            try await Task.sleep(for: .milliseconds(200))
            var received = 0
            var inOrder = true
            for try await line in client.lines {
                inOrder = inOrder && line.hasPrefix("line \(received) ")
                received += 1
            }
            #expect(received == count)
            #expect(inOrder)
            await client.close()
            await server.close()
        }
    }

    @Test func answersAClientThatStoppedSending() async throws {
        let (server, reports) = try await startCountingServer(path: path)
        try await withThrowingTaskGroup { group in
            group.addTask { try await server.run() }

            let client = try #require(RawUnixSocket(path: path))
            // CRLF endings and an unterminated last line, then the client shuts its sending side.
            #expect(client.write(bytes("one\r\ntwo\nthree")))
            client.shutdownWriting()
            #expect(await client.readToEnd() == bytes("got 3\n"))
            var received = reports.makeAsyncIterator()
            #expect(await received.next() == ["one", "two", "three"])

            await server.close()
        }
    }

    @Test func servesAClientThatHangsUpRightAfterSending() async throws {
        let (server, reports) = try await startCountingServer(path: path)
        try await withThrowingTaskGroup { group in
            group.addTask { try await server.run() }

            // A fire-and-forget client, like `echo … | nc -U`: its line must still be handled.
            do {
                let client = try #require(RawUnixSocket(path: path))
                #expect(client.write(bytes("{\"op\":\"stop\"}\n")))
            }
            var received = reports.makeAsyncIterator()
            #expect(await received.next() == ["{\"op\":\"stop\"}"])

            await server.close()
        }
    }
}
