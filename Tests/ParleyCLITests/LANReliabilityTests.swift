import Foundation
import Testing

/// Three real nodes on a LAN made of network namespaces, a bridge and nftables (see `LANTestBed`).
/// Short here; `Tests/reliability/run-long.sh` runs the same tests at 10,000 messages.
@Suite(
    .serialized, .enabled(if: LANTestBed.canCreate, "needs root, iproute2 and nftables"),
    .timeLimit(.minutes(Reliability.long ? 120 : 10)))
struct LANReliabilityTests {
    @Test func threeHostsWithDiscoverFindEachOtherAndChatWithNoPeerOption() throws {
        // Given three hosts on one bridge, each running a node with --discover and no --peer
        let cluster = try LANCluster()
        defer { cluster.stop() }

        // When alice makes a chat with bob and carol, whose addresses she was never told, and writes
        let chat = try cluster.makeChat("Found")
        _ = try cluster.connect("alice").call(Control.send(chat: chat, text: "hello LAN"))

        // Then both receive it, and both replies reach everyone
        for name in ["bob", "carol"] {
            #expect(
                cluster.eventually(seconds: 30) {
                    try cluster.messages(chat, on: name).contains { $0.text == "hello LAN" }
                })
            _ = try cluster.connect(name).call(Control.send(chat: chat, text: "\(name) here"))
        }
        #expect(cluster.waitForConvergence(chat, expected: 3, seconds: 30) != nil)
        // and each node learned the others at their namespace addresses
        for name in cluster.names {
            let known = Set((try cluster.status(of: name)["knownPeers"] as? [String: String] ?? [:]).values)
            let others = Set(cluster.bed.hosts.filter { $0.name != name }.map { "\($0.address):7001" })
            #expect(others.isSubset(of: known), "\(name) knows \(known)")
        }
    }

    @Test(arguments: Reliability.lossPercents)
    func underRandomLossNothingIsLostOrDuplicatedAndStoresAndTalliesAgree(_ percent: Int) throws {
        // Given three nodes, a chat and a poll from each, then every host dropping `percent`% of datagrams at random
        let cluster = try LANCluster()
        defer { cluster.stop() }
        let chat = try cluster.makeChat("Lossy \(percent)")
        var polls: [String] = []
        for name in cluster.names {
            let poll =
                try cluster.connect(name).call(Control.pollCreate(chat: chat, question: "\(name)'s question?"))
                as? [String: Any]
            polls.append(try #require(poll?["id"] as? String))
        }
        #expect(cluster.waitForConvergence(chat, expected: polls.count, seconds: 60) != nil)
        let pollIDs = polls
        try cluster.bed.setLoss(percent: percent)
        let datagramsBefore = try cluster.datagramsOut()

        // When the three post their share of the messages at once, each voting on every poll halfway
        let perNode = Reliability.lossMessages / 3
        let choices = ["alice": "up", "bob": "down", "carol": "up"]
        let start = Date()
        let posted = concurrently(
            cluster.names.map { name in
                { @Sendable in
                    let texts = (0..<perNode).map { "\(name) #\($0)" }
                    let first = cluster.post(Array(texts.prefix(perNode / 2)), chat: chat, from: name)
                    let votes = pollIDs.compactMap { poll in
                        (try? cluster.connect(name).call(
                            Control.pollVote(chat: chat, poll: poll, choice: choices[name]!))) as? [String: Any]
                    }
                    return (
                        first + cluster.post(Array(texts.dropFirst(perNode / 2)), chat: chat, from: name), votes.count
                    )
                }
            })
        let postedIDs = posted.flatMap(\.0)
        #expect(
            postedIDs.count == perNode * 3 && posted.allSatisfy { $0.1 == polls.count },
            "a node refused a send or a vote")
        let postingSeconds = Date().timeIntervalSince(start)

        // Then every node ends with exactly every message, once
        let expected = polls.count + perNode * 3 + polls.count * 3
        let seconds = cluster.waitForConvergence(chat, expected: expected, seconds: Reliability.convergenceSeconds)
        #expect(seconds != nil, "no convergence within \(Reliability.convergenceSeconds) s")
        let stores = try cluster.names.map { try cluster.messages(chat, on: $0) }
        for (name, store) in zip(cluster.names, stores) {
            #expect(store.count == expected, "\(name) holds \(store.count) of \(expected)")
            #expect(Set(store.map(\.id)).count == store.count, "\(name) holds a message twice")
            #expect(
                Set(store.map { "\($0.author)/\($0.sequence)" }).count == store.count,
                "\(name) holds two messages at one author sequence")
            #expect(Set(postedIDs).isSubset(of: Set(store.map(\.id))), "\(name) lost a message")
        }
        #expect(Set(stores.map { Set($0.map(\.id)) }).count == 1, "the stores differ")
        // and the same tallies: two up and one down on every poll
        for poll in polls {
            let tallies = try cluster.names.map { try cluster.tally(chat, poll: poll, on: $0) }
            #expect(tallies.allSatisfy { $0 == tallies[0] }, "tallies differ: \(tallies)")
            #expect((tallies[0].up, tallies[0].down) == (2, 1))
        }
        // and the loss was real, and no honest datagram was ever rate-limited
        let dropped = try cluster.bed.droppedByLoss()
        #expect(percent == 0 || dropped > 0, "the loss rules dropped nothing")
        for name in cluster.names {
            #expect(try cluster.rejections(of: name)["rateLimited"] == nil, "\(name) rate-limited an honest peer")
        }

        if let seconds {
            let messages = perNode * 3 + polls.count * 3
            let datagrams = try cluster.datagramsOut() - datagramsBefore
            Reliability.figure("loss\(percent).messages", "\(messages)")
            Reliability.figure("loss\(percent).postingSeconds", String(format: "%.1f", postingSeconds))
            // Goodput: distinct messages held by all three, over the time from the first post to convergence.
            Reliability.figure("loss\(percent).convergenceSecondsAfterPosting", String(format: "%.1f", seconds))
            Reliability.figure(
                "loss\(percent).goodputMessagesPerSecond",
                String(format: "%.0f", Double(messages) / (postingSeconds + seconds)))
            Reliability.figure("loss\(percent).datagramsSent", "\(datagrams)")
            Reliability.figure("loss\(percent).datagramsDropped", "\(dropped)")
        }
    }

    @Test func aNodeKilledMidBurstKeepsEverythingItAcknowledgedAndConverges() throws {
        // Given three nodes in a chat
        let cluster = try LANCluster()
        defer { cluster.stop() }
        let chat = try cluster.makeChat("Crash")
        let burst = Reliability.burst

        // When alice and carol post a burst each, and carol's node is killed with SIGKILL halfway through hers
        let results = concurrently([
            { @Sendable in cluster.post((0..<burst).map { "alice #\($0)" }, chat: chat, from: "alice") },
            { @Sendable in
                cluster.post((0..<burst).map { "carol #\($0)" }, chat: chat, from: "carol") { count in
                    if count == burst / 2 { cluster.kill9("carol") }
                }
            },
        ])
        let (alicePosted, carolAcknowledged) = (results[0], results[1])
        #expect(alicePosted.count == burst)
        #expect((burst / 2..<burst).contains(carolAcknowledged.count), "carol acknowledged \(carolAcknowledged.count)")
        // (what carol had acknowledged to alice: alice's messages that both bob and carol acknowledged)
        #expect(
            cluster.eventually(seconds: 60) {
                try cluster.messages(chat, on: "alice").filter { $0.text.hasPrefix("alice") && $0.deliveredTo >= 1 }
                    .count == burst
            }, "bob never acknowledged all of alice's burst")
        let ackedByCarol = Set(try cluster.messages(chat, on: "alice").filter { $0.deliveredTo == 2 }.map(\.id))

        // Then, restarted on the same data while cut off from everyone, carol still holds all of it
        try cluster.bed.isolate("carol")
        try cluster.start("carol")
        let held = Set(try cluster.messages(chat, on: "carol").map(\.id))
        #expect(
            Set(carolAcknowledged).isSubset(of: held),
            "carol lost \(Set(carolAcknowledged).subtracting(held).count) of her own acknowledged messages")
        #expect(
            ackedByCarol.isSubset(of: held),
            "carol lost \(ackedByCarol.subtracting(held).count) messages she had acknowledged to alice")

        // and once reconnected, all three converge on the same messages
        try cluster.bed.heal()
        let seconds = cluster.waitForConvergence(chat, seconds: Reliability.convergenceSeconds)
        #expect(seconds != nil, "no convergence after the restart")
        let final = Set(try cluster.messages(chat, on: "bob").map(\.id))
        #expect(Set(alicePosted + carolAcknowledged).isSubset(of: final))
        Reliability.figure("crash.burst", "\(burst)")
        Reliability.figure("crash.carolSendsAcknowledgedBeforeKill", "\(carolAcknowledged.count)")
        Reliability.figure("crash.aliceMessagesCarolHadAcknowledged", "\(ackedByCarol.count)")
        if let seconds { Reliability.figure("crash.convergenceSecondsAfterRestart", String(format: "%.1f", seconds)) }
    }

    @Test func bothSidesOfAPartitionPostAndVoteAndConvergeOnceHealed() throws {
        // Given three nodes in a chat with alice's poll, then the LAN split into alice+bob | carol
        let cluster = try LANCluster()
        defer { cluster.stop() }
        let chat = try cluster.makeChat("Split")
        let beforeReply = try #require(
            try cluster.connect("alice").call(Control.pollCreate(chat: chat, question: "Before?")) as? [String: Any])
        let before = try #require(beforeReply["id"] as? String)
        #expect(cluster.waitForConvergence(chat, expected: 1, seconds: 60) != nil)
        try cluster.bed.partition(["alice", "bob"])

        // When both sides post, make polls and vote while split
        let burst = Reliability.burst
        let sides = concurrently([
            { @Sendable in cluster.post((0..<burst).map { "alice #\($0)" }, chat: chat, from: "alice") },
            { @Sendable in cluster.post((0..<burst).map { "carol #\($0)" }, chat: chat, from: "carol") },
        ])
        let duringReply = try #require(
            try cluster.connect("carol").call(Control.pollCreate(chat: chat, question: "During?")) as? [String: Any])
        let during = try #require(duringReply["id"] as? String)
        _ = try cluster.connect("bob").call(Control.pollVote(chat: chat, poll: before, choice: "up"))
        _ = try cluster.connect("carol").call(Control.pollVote(chat: chat, poll: before, choice: "down"))
        _ = try cluster.connect("carol").call(Control.pollVote(chat: chat, poll: during, choice: "up"))
        #expect(sides.allSatisfy { $0.count == burst })
        // (the split is real: each side has its own messages, not the other's)
        #expect(cluster.eventually(seconds: 60) { try cluster.messageCount(chat, on: "bob") == 1 + burst + 1 })
        Thread.sleep(forTimeInterval: 3) // longer than a sync interval: the other side would have arrived by now
        #expect(try cluster.messageCount(chat, on: "alice") == 1 + burst + 1)
        #expect(try cluster.messageCount(chat, on: "carol") == 1 + burst + 3)
        #expect(try cluster.bed.droppedByPartition() > 0)

        // Then, healed, all three converge on every message and the same tallies
        try cluster.bed.heal()
        let expected = 1 + 2 * burst + 1 + 3
        let seconds = cluster.waitForConvergence(chat, expected: expected, seconds: Reliability.convergenceSeconds)
        #expect(seconds != nil, "no convergence after healing")
        let lists = try cluster.names.map { try cluster.messages(chat, on: $0).map(\.id) }
        let stores = lists.map(Set.init)
        #expect(Set(stores).count == 1 && stores[0].count == expected)
        // and list them in one history order, the same on every node, whatever order each received them in
        #expect(lists.allSatisfy { $0 == lists[0] }, "history orders differ between nodes")
        #expect(Set(sides.flatMap { $0 }).isSubset(of: stores[0]))
        for (poll, up, down) in [(before, 1, 1), (during, 1, 0)] {
            let tallies = try cluster.names.map { try cluster.tally(chat, poll: poll, on: $0) }
            #expect(
                tallies.allSatisfy { $0 == tallies[0] } && (tallies[0].up, tallies[0].down) == (up, down), "\(tallies)")
        }
        Reliability.figure("partition.messagesPerSide", "\(burst)")
        if let seconds { Reliability.figure("partition.convergenceSecondsAfterHeal", String(format: "%.1f", seconds)) }
    }
}
