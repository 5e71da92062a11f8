import Foundation
import ParleyAPI
import ParleyControlSocket
import ParleyCrypto
@testable import ParleyNode
@testable import ParleyStore
import ParleyTestKit
import Testing

/// A streaming request on the control socket ends with its client, even when nothing is streamed.
struct StreamHangUpTests {
    @Test func aQuietLiveQueryStopsWhenItsClientHangsUp() async throws {
        // Given a node serving its control socket, and a chat
        let node = Node(
            configuration: NodeConfiguration(identity: try Identity.generate()), store: try MessageStore.inMemory(),
            transport: InMemoryNetwork().makeTransport())
        _ = try await node.createChat(title: "Quiet", members: [try Identity.generate().publicKey])
        let path = NSTemporaryDirectory() + "parley-hangup-\(UUID().uuidString.prefix(8)).sock"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await ControlServer.start(service: APIService(node: node, selfName: "me"), socketPath: path)
        let serving = Task { try await server.run() }
        defer { serving.cancel() }

        // When three clients each start a live query no message will ever match, then hang up
        for _ in 0..<3 {
            let client = try await LineClient.connect(path: path)
            try await client.send(#"{"watchMessages":{"chat":"Quiet","tags":["NeverSent"]}}"#)
            try await waitUntil { node.store.arrivalHub.subscriberCount > 0 }
            await client.close()
            // Then its subscription to the store's arrivals is released, with no message needed to notice
            try await waitUntil { node.store.arrivalHub.subscriberCount == 0 }
        }
        #expect(node.store.arrivalHub.subscriberCount == 0)
        await server.close()
    }

    /// Polls a condition that another task makes true; fails after five seconds. (The hang-up travels
    /// through a real socket and the server's tasks: there is no clock to step.)
    private func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<500 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(condition(), "the condition never held")
    }
}
