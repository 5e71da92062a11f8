import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// In-process peers on a network that holds every datagram, and one manual clock, stepped to
/// quiescence by a `NetworkPump`: what a test checks after `settle()` or `advance(by:)` is the final
/// state, not a state it waited for.
struct PumpedPeers {
    typealias Peer = LossyNetworkConvergenceTests.Peer

    let peers: [Peer]
    let network: InMemoryNetwork
    let clock: ManualClock
    let pump: NetworkPump

    /// `count` peers, contacts of each other with their addresses unless `introduced` is false;
    /// `bootstrap[i]` lists the peers whose addresses peer `i` is started with (`--peer`);
    /// `configure` adjusts each node's settings.
    static func make(
        count: Int, conditions: InMemoryNetwork.Conditions = .init(), seed: UInt64 = 1, introduced: Bool = true,
        bootstrap: [Int: [Int]] = [:], configure: (Int, inout NodeConfiguration) -> Void = { _, _ in }
    ) async throws -> PumpedPeers {
        let network = InMemoryNetwork(conditions: conditions, seed: seed, delivery: .held)
        let clock = ManualClock()
        let transports = (0..<count).map { _ in network.makeTransport() }
        let peers = try (0..<count).map { index in
            let identity = try Identity.generate()
            var configuration = NodeConfiguration(
                identity: identity, bootstrapPeers: (bootstrap[index] ?? []).map { transports[$0].localAddress })
            // A search still indexes what it needs; a background indexer would make the runs differ.
            configuration.searchIndexTick = nil
            configure(index, &configuration)
            return Peer(
                identity: identity,
                node: Node(
                    configuration: configuration, store: try MessageStore.inMemory(), transport: transports[index],
                    clock: clock))
        }
        if introduced { try await LossyNetworkConvergenceTests.introduce(peers) }
        return PumpedPeers(
            peers: peers, network: network, clock: clock,
            pump: NetworkPump(network: network, clock: clock, nodes: count))
    }

    /// Runs the nodes while `body` works (from a quiet start), then stops them.
    func running(_ body: @Sendable () async throws -> Void) async throws {
        try await LossyNetworkConvergenceTests.running(peers) {
            try await pump.settle()
            try await body()
        }
    }

    /// Delivers what was sent and lets every node handle it, until nothing more is sent.
    func settle() async throws { try await pump.settle() }

    /// Moves time on by `duration`, firing every timer due on the way (retransmits, sync rounds).
    func advance(by duration: Duration) async throws { try await pump.advance(by: duration) }
}

extension PumpedPeers {
    /// A chat of all the bed's peers, created by the first, whose ballot keys are all published: ready
    /// for a secret poll.
    func secretPollChat() async throws -> ChatID {
        let invite = try await peers[0].node.createChat(
            title: "Board", members: peers.dropFirst().map(\.identity.publicKey))
        try await settle()
        try await peers[0].node.prepareSecretPolls(chat: invite.id)
        try await settle()
        return invite.id
    }

    /// A chat of all the bed's peers with their ballot keys published, and the first peer's secret
    /// yes/no poll closing in a minute, held by every node.
    func secretPoll() async throws -> (chat: ChatID, poll: MessageID, secret: SecretPoll) {
        let chat = try await secretPollChat()
        let created = try await peers[0].node.createSecretPoll(
            chat: chat, question: .yesNo("Raise dues?"), closesAtMillis: clock.wallMillis + 60_000)
        try await settle()
        return (chat, created.poll.id, try #require(try ParleyCore.Poll(created.poll.message).secret))
    }
}
