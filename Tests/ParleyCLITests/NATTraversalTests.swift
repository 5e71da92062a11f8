import Foundation
import Testing

/// Issue 17: members behind their own NATs, one member on the "public" segment (`NATTestBed`), real
/// `parley node` processes. The NATed members know only the public member's address (`--peer`); it
/// introduces them to each other (PROTOCOL.md §12a).
@Suite(.serialized, .enabled(if: LANTestBed.canCreate, "needs root, iproute2 and nftables"), .processSuiteLimit)
struct NATTraversalTests {
    /// carol on the public segment; alice and bob behind NATs, started with `--peer` carol; `creator`
    /// creates a chat of the three: carol once she has heard from both, or alice at once, as soon as
    /// her contacts are added. Returns the running nodes and the chat.
    /// `aliceHoldsForBob`: an address alice is given for bob that does not reach him (none by default).
    static func start(
        _ routers: NATTestBed.Routers, aliceHoldsForBob: String? = nil, creator: String = "carol"
    ) throws -> (bed: NATTestBed, parley: ParleyBinary, nodes: [Process], chat: String) {
        let bed = try NATTestBed.make(public: ["carol"], behindRouters: ["alice", "bob"], routers)
        var nodes: [Process] = []
        do {
            let parley = try ParleyBinary()
            let names = ["carol", "alice", "bob"]
            for name in names { _ = try parley.keygen(name) }
            let carol = bed.host("carol")
            for name in names {
                let host = bed.host(name)
                let peer = name == "carol" ? [] : ["--peer", "\(carol.address):7001"]
                nodes.append(
                    try parley.startNode(
                        name, listen: "\(host.address):7001", options: peer, launcher: bed.launcher(for: host)))
            }
            for (me, other, address) in [
                ("carol", "alice", nil), ("carol", "bob", nil), ("alice", "carol", carol.address),
                ("bob", "carol", carol.address),
                ("alice", "bob", aliceHoldsForBob), ("bob", "alice", nil),
            ] as [(String, String, String?)] {
                try parley.client(
                    me,
                    ["contacts", "add", "\(parley.workspace)/keys/\(other).pub", "--name", other]
                        + (address.map { ["--addr", "\($0):7001"] } ?? []))
            }
            if creator == "carol" {
                // carol learns where alice and bob are from their announces (through their NATs)
                #expect(
                    parley.eventually("carol", ["status", "--json"]) {
                        $0.contains(Self.key(parley, "alice")) && $0.contains(Self.key(parley, "bob"))
                    })
            }
            let others = ["carol", "alice", "bob"].filter { $0 != creator }
            let chat = try parley.client(
                creator, ["chat", "create", "Across"] + others.flatMap { ["--member", $0] }
            ).trimmingCharacters(in: .whitespacesAndNewlines)
            for name in others {
                #expect(
                    parley.eventually(name, ["chat", "list"], seconds: 30) { $0.contains("Across") },
                    "\(name) never joined")
            }
            return (bed, parley, nodes, chat)
        } catch {
            nodes.forEach { $0.terminateAndWait() }
            bed.remove()
            throw error
        }
    }

    static func key(_ parley: ParleyBinary, _ name: String) -> String {
        ((try? String(contentsOfFile: "\(parley.workspace)/keys/\(name).pub", encoding: .utf8)) ?? "").split(
            separator: " "
        ).dropFirst().first.map(String.init) ?? name
    }

    static func connected(_ parley: ParleyBinary, _ name: String, to other: String) -> Bool {
        let status = try? ControlConnection(dataDirectory: parley.data(name)).call(Control.status) as? [String: Any]
        return (status?["connectedPeers"] as? [String] ?? []).contains(key(parley, other))
    }

    /// Waits up to 10 s for alice and bob to hold a session with each other; whether they did, and when.
    static func directSession(_ parley: ParleyBinary) -> (direct: Bool, seconds: Double) {
        let start = Date()
        var direct = false
        while !direct, Date().timeIntervalSince(start) < 10 {
            direct = connected(parley, "alice", to: "bob") && connected(parley, "bob", to: "alice")
            if !direct { Thread.sleep(forTimeInterval: 0.1) }
        }
        return (direct, Date().timeIntervalSince(start))
    }

    static func tally(_ parley: ParleyBinary, _ name: String, _ chat: String, _ poll: String) -> [Int]? {
        guard
            let result = try? ControlConnection(dataDirectory: parley.data(name)).call(
                Control.pollResults(chat: chat, poll: poll)) as? [String: Any],
            let up = result["up"] as? Int, let down = result["down"] as? Int
        else { return nil }
        return [up, down]
    }

    /// Every member votes on a poll of carol's; true when all three tallies show 2 up and 1 down.
    static func votesAgree(_ parley: ParleyBinary, _ chat: String, seconds: Double) throws -> Bool {
        let poll = try #require(
            (try ControlConnection(dataDirectory: parley.data("carol")).call(
                Control.pollCreate(chat: chat, question: "Meet?")) as? [String: Any])?["id"] as? String)
        for (name, choice) in [("carol", "up"), ("alice", "up"), ("bob", "down")] {
            let deadline = Date().addingTimeInterval(seconds)
            while (try? ControlConnection(dataDirectory: parley.data(name)).call(
                Control.pollVote(chat: chat, poll: poll, choice: choice))) == nil, Date() < deadline
            {
                Thread.sleep(forTimeInterval: 0.2) // the poll has not reached this member yet
            }
        }
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if ["carol", "alice", "bob"].allSatisfy({ tally(parley, $0, chat, poll) == [2, 1] }) { return true }
            Thread.sleep(forTimeInterval: 0.2)
        }
        return false
    }

    @Test func twoMembersBehindTheirOwnNATsGetADirectSessionThroughAPublicMember() throws {
        let (bed, parley, nodes, chat) = try Self.start(.nat)
        defer { nodes.forEach { $0.terminateAndWait() }; bed.remove() }

        // Then alice and bob, who know no address for each other, get a session within 5 s of joining
        let (direct, seconds) = Self.directSession(parley)
        #expect(direct && seconds <= 5, "no direct session after \(seconds) s")
        Reliability.figure("nat.directSessionSeconds", String(format: "%.2f", seconds))
        // each sees the other online, and their votes give the same tally everywhere
        #expect(
            parley.eventually("alice", ["members", chat, "--json"], seconds: 20) {
                Self.online($0, Self.key(parley, "bob"), via: nil)
            })
        #expect(try Self.votesAgree(parley, chat, seconds: 30))
        // and what alice writes goes to bob over their own session, not around it through carol
        let (share, delivery) = try #require(
            try Self.relayShare(parley, chat, count: 50), "bob did not get alice's 50 texts")
        Reliability.figure("nat.relayShare", String(format: "%.2f of 50 texts, all in %.2f s", share, delivery))
        #expect(share <= 0.1, "\(share * 100) % of alice's texts reached bob through carol")
    }

    /// Issue 39: routers whose own stack takes an unsolicited datagram, which keeps that port for 30 s
    /// for the sender: a full-TTL punch arriving before the far member has sent that way would make its
    /// router map the member's own packets to another port (PROTOCOL §12a). alice makes the chat as soon
    /// as her contacts are added, before carol has heard from bob; or carol once she has heard from both.
    @Test(arguments: [
        (NATTestBed.Routers.natKeepingUnsolicited, "alice"), (.natKeepingUnsolicited, "carol"),
        (.natKeepingUnsolicitedSecondNotPortPreserving, "alice"),
    ])
    func behindRoutersThatKeepUnsolicitedDatagramsAChatMadeAtOnceStillGetsADirectSessionWithinFiveSeconds(
        routers: NATTestBed.Routers, creator: String
    ) throws {
        let (bed, parley, nodes, chat) = try Self.start(routers, creator: creator)
        defer { nodes.forEach { $0.terminateAndWait() }; bed.remove() }
        let name =
            (routers == .natKeepingUnsolicited ? "keepingUnsolicited" : "keepingUnsolicited.oneNotPortPreserving")
            + (creator == "carol" ? ".carolCreates" : "")

        // Then alice and bob get a session of their own within 5 s of joining: each opening died past
        // its own router, and the target's handshakes came in through it
        let (direct, seconds) = Self.directSession(parley)
        #expect(direct && seconds <= 5, "no direct session after \(seconds) s")
        Reliability.figure("nat.\(name).directSessionSeconds", String(format: "%.2f", seconds))
        // the votes agree on all three
        #expect(try Self.votesAgree(parley, chat, seconds: 30))
        // and alice's texts go to bob over their session, not around it through carol
        let (share, delivery) = try #require(
            try Self.relayShare(parley, chat, count: 50), "bob did not get alice's 50 texts")
        Reliability.figure("nat.\(name).relayShare", String(format: "%.2f of 50 texts, all in %.2f s", share, delivery))
        #expect(share <= 0.1, "\(share * 100) % of alice's texts reached bob through carol")
    }

    @Test func aMemberHoldingAnAddressThatDoesNotWorkStillGetsADirectSessionWithinFiveSeconds() throws {
        // Given alice holds bob's address on his own LAN, which her packets cannot reach, so her own
        // handshakes go nowhere and she would first wait out her grace before asking (PROTOCOL §12a)
        let (bed, parley, nodes, _) = try Self.start(.nat, aliceHoldsForBob: "192.168.2.2")
        defer { nodes.forEach { $0.terminateAndWait() }; bed.remove() }

        // Then bob's question, answered to both, ends her grace: a session within 5 s all the same
        let (direct, seconds) = Self.directSession(parley)
        #expect(direct && seconds <= 5, "no direct session after \(seconds) s")
        Reliability.figure("nat.deadAddress.directSessionSeconds", String(format: "%.2f", seconds))
    }

    @Test func behindSymmetricNATsMembersStillConvergeThroughThePublicMember() throws {
        let (bed, parley, nodes, chat) = try Self.start(.symmetricNAT)
        defer { nodes.forEach { $0.terminateAndWait() }; bed.remove() }

        // Then no direct session can be made (a new public port per destination), yet each shows the
        // other online from the beats carol relays, everything they write reaches the other through
        // carol, and the tallies agree
        for (name, other) in [("bob", "alice"), ("alice", "bob")] {
            #expect(
                parley.eventually(name, ["members", chat, "--json"], seconds: 30) {
                    Self.online($0, Self.key(parley, other), via: Self.key(parley, "carol"))
                }, "\(name) never saw \(other) online via carol")
        }
        #expect(parley.eventually("bob", ["members", chat]) { $0.contains("alice  online via carol") })
        #expect(try Self.votesAgree(parley, chat, seconds: 60))
        _ = try ControlConnection(dataDirectory: parley.data("alice")).call(Control.send(chat: chat, text: "via carol"))
        #expect(parley.eventually("bob", ["messages", chat], seconds: 30) { $0.contains("via carol") })
        let (share, seconds) = try #require(
            try Self.relayShare(parley, chat, count: 50), "bob did not get alice's 50 texts")
        Reliability.figure(
            "nat.symmetric.relayShare", String(format: "%.2f of 50 texts, all in %.2f s", share, seconds))
        #expect(share == 1, "without a session, every text of alice's reaches bob through carol")
        // pushed on by carol as each reached her, not left for bob's next sync round
        #expect(try #require(Self.relayedOnward(parley, "carol")) >= 50)
        #expect(!Self.connected(parley, "alice", to: "bob"))
    }

    /// Others' messages bob's node stored so far: from their authors' own nodes, and relayed by another member.
    static func stored(_ parley: ParleyBinary, _ name: String) -> (fromAuthors: Int, relayed: Int)? {
        guard let counters = counters(parley, name, ["storedFromAuthors", "storedRelayed"]) else { return nil }
        return (counters[0], counters[1])
    }

    /// Others' messages `name`'s node pushed on to members relayed through it so far.
    static func relayedOnward(_ parley: ParleyBinary, _ name: String) -> Int? {
        counters(parley, name, ["relayedOnward"])?.first
    }

    /// `keys`' integer values in `name`'s status, in order; nil if the node does not answer or lacks one.
    private static func counters(_ parley: ParleyBinary, _ name: String, _ keys: [String]) -> [Int]? {
        guard
            let status = try? ControlConnection(dataDirectory: parley.data(name)).call(Control.status)
                as? [String: Any]
        else { return nil }
        let values = keys.compactMap { status[$0] as? Int }
        return values.count == keys.count ? values : nil
    }

    /// alice sends `count` texts; the share of them bob stored through another member (carol) rather
    /// than from alice's node itself, and the seconds until all arrived (nil if they did not within 30 s).
    static func relayShare(_ parley: ParleyBinary, _ chat: String, count: Int) throws -> (
        share: Double, seconds: Double
    )? {
        let before = try #require(stored(parley, "bob"))
        let start = Date()
        for index in 1...count {
            _ = try ControlConnection(dataDirectory: parley.data("alice")).call(
                Control.send(chat: chat, text: "share \(index)"))
        }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            // Over everything bob stored meanwhile, in case anything but the texts arrived with them
            if let now = stored(parley, "bob"),
                case let total = now.fromAuthors + now.relayed - before.fromAuthors - before.relayed, total >= count
            {
                return (Double(now.relayed - before.relayed) / Double(total), Date().timeIntervalSince(start))
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return nil
    }

    /// Whether the `members --json` output lists `key` as online, through `via`'s relaying or (nil) directly.
    static func online(_ json: String, _ key: String, via: String?) -> Bool {
        guard let members = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] else {
            return false
        }
        return members.contains {
            $0["id"] as? String == key && $0["online"] as? Bool == true && $0["via"] as? String == via
        }
    }

    @Test func twoRoutedSubnetsWorkWithPeerAddressesOnly() throws {
        // Given alice and bob on two networks joined by routers (no NAT), each started with only the
        // other's address as --peer, and each other's contact without an address
        let bed = try NATTestBed.make(public: [], behindRouters: ["alice", "bob"], .routed)
        var nodes: [Process] = []
        defer { nodes.forEach { $0.terminateAndWait() }; bed.remove() }
        let parley = try ParleyBinary()
        for name in ["alice", "bob"] { _ = try parley.keygen(name) }
        for (name, other) in [("alice", "bob"), ("bob", "alice")] {
            let host = bed.host(name)
            nodes.append(
                try parley.startNode(
                    name, listen: "\(host.address):7001", options: ["--peer", "\(bed.host(other).address):7001"],
                    launcher: bed.launcher(for: host)))
        }
        for (me, other) in [("alice", "bob"), ("bob", "alice")] {
            try parley.client(me, ["contacts", "add", "\(parley.workspace)/keys/\(other).pub", "--name", other])
        }

        // When alice makes a chat with bob and writes
        let chat = try parley.client("alice", ["chat", "create", "Routed", "--member", "bob"]).trimmingCharacters(
            in: .whitespacesAndNewlines)
        _ = try ControlConnection(dataDirectory: parley.data("alice")).call(
            Control.send(chat: chat, text: "across the router"))

        // Then bob joins and gets it, over a session of their own
        #expect(parley.eventually("bob", ["messages", chat], seconds: 30) { $0.contains("across the router") })
        #expect(Self.connected(parley, "alice", to: "bob") && Self.connected(parley, "bob", to: "alice"))
    }
}
