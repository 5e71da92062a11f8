import ParleyCore
import Testing

struct ReliableQueueTests {
    /// Item n to `lane`; a bare number is an item to bob.
    struct Item: LaneKeyed, ExpressibleByIntegerLiteral {
        let number: Int
        var lane = "bob"

        init(_ number: Int, lane: String = "bob") {
            self.number = number
            self.lane = lane
        }

        init(integerLiteral number: Int) { self.init(number) }
    }

    typealias Queue = ReliableQueue<Item, String>

    static func items(_ keys: ClosedRange<Int>, lane: String = "bob") -> [(key: Item, payload: String)] {
        keys.map { (Item($0, lane: lane), "m\($0)") }
    }

    @Test func backsOffUntilAcknowledged() {
        var queue = Queue()
        #expect(queue.push(Self.items(1...1), now: .zero).map(\.payload) == ["m1"])
        #expect(queue.takeDue(now: .milliseconds(100)).isEmpty)
        #expect(queue.takeDue(now: .milliseconds(200)).map(\.payload) == ["m1"]) // the initial timeout
        #expect(queue.takeDue(now: .milliseconds(500)).isEmpty) // next after 400 ms more
        #expect(queue.takeDue(now: .milliseconds(600)).map(\.payload) == ["m1"])
        _ = queue.acknowledge([1], now: .milliseconds(601))
        #expect(queue.count == 0)
        #expect(queue.takeDue(now: .seconds(60)).isEmpty)
    }

    @Test func anOverloadedNodeHoldsItsRetransmitsBackByFourTimesItsOwnInputDelay() {
        var queue = Queue()
        _ = queue.push(Self.items(1...1), now: .zero)
        // Due at 200 ms, but this node's own input waits 100 ms: nothing before 400 ms since it was sent
        #expect(queue.takeDue(now: .milliseconds(200), inputDelay: .milliseconds(100)).isEmpty)
        #expect(queue.takeDue(now: .milliseconds(399), inputDelay: .milliseconds(100)).isEmpty)
        #expect(queue.takeDue(now: .milliseconds(400), inputDelay: .milliseconds(100)).map(\.payload) == ["m1"])
        // However long the input waits, an item is sent again at least every maximum timeout (4 s)
        #expect(queue.takeDue(now: .milliseconds(4_399), inputDelay: .seconds(30)).isEmpty)
        #expect(queue.takeDue(now: .milliseconds(4_400), inputDelay: .seconds(30)).map(\.payload) == ["m1"])
        _ = queue.acknowledge([1], now: .seconds(5))
        #expect(queue.count == 0)
        #expect(queue.resentOnTimeout == 2)
    }

    @Test func sendsNoMoreThanTheWindowAndReleasesTheBacklogAsAcksArrive() {
        // Given a window of 64 and 100 items
        var queue = Queue()
        let first = queue.push(Self.items(1...100), now: .zero)
        #expect(first.map(\.payload) == (1...64).map { "m\($0)" })
        #expect(queue.count == 100)
        // When the first ten are acknowledged
        let released = queue.acknowledge((1...10).map { Item($0) }, now: .milliseconds(1))
        // Then the window grew by ten and twenty more go out, in order
        #expect(queue.window(of: "bob") == 74)
        #expect(released.map(\.payload) == (65...84).map { "m\($0)" })
        // And lanes do not share a window
        #expect(queue.push(Self.items(1_000...1_000, lane: "carol"), now: .milliseconds(1)).count == 1)
    }

    @Test func theTimeoutFollowsMeasuredRoundTripsButNeverSamplesARetry() {
        var queue = Queue()
        _ = queue.push(Self.items(1...1), now: .zero)
        _ = queue.acknowledge([1], now: .milliseconds(2))
        // One 2 ms sample: smoothed 2 ms, deviation 1 ms, so the 50 ms floor applies
        #expect(queue.timeout(of: "bob") == .milliseconds(50))
        // Item 2, sent after that sample (50 ms timeout), is retried, then acked very late, rounds
        // later: that ack says nothing about the round trip
        _ = queue.push(Self.items(2...2), now: .milliseconds(2))
        #expect(queue.takeDue(now: .milliseconds(52)).map(\.payload) == ["m2"])
        _ = queue.acknowledge([2], now: .seconds(3))
        #expect(queue.timeout(of: "bob") == .milliseconds(50))
    }

    @Test func aBatchOfAcksIsOneRoundTripSampleSoTheTimeoutKeepsItsMargin() {
        // Given 60 items sent at once and acknowledged together 100 ms later, as a peer acks a commit
        var queue = Queue()
        _ = queue.push(Self.items(1...60), now: .zero)
        _ = queue.acknowledge((1...60).map { Item($0) }, now: .milliseconds(100))
        // Then that is one sample: smoothed 100 ms, deviation 50 ms, timeout 300 ms (sixty equal
        // samples would have worn the deviation down to nothing and the timeout to 100 ms)
        #expect(queue.timeout(of: "bob") == .milliseconds(300))
        // And within the next round trip acks only add to its sample, the longest of them since the
        // last one, taken once a smoothed round trip (100 ms) has passed since it
        _ = queue.push(Self.items(61...61), now: .milliseconds(100))
        _ = queue.push(Self.items(62...63), now: .milliseconds(180))
        _ = queue.acknowledge([61], now: .milliseconds(190))
        #expect(queue.timeout(of: "bob") == .milliseconds(300))
        _ = queue.acknowledge([62, 63], now: .milliseconds(200))
        // 90 ms (item 61, acked in the call before): smoothed 98.75 ms, deviation 40 ms
        #expect(queue.timeout(of: "bob") == .microseconds(258_750))
    }

    @Test func anItemPushedAgainWhileInFlightIsNotSampled() {
        // Given an item sent at 0 and pushed again at 150 ms, while still in flight
        var queue = Queue()
        _ = queue.push(Self.items(1...1), now: .zero)
        #expect(queue.push(Self.items(1...1), now: .milliseconds(150)).map(\.payload) == ["m1"])
        // When an ack comes at 160 ms, answering either copy
        _ = queue.acknowledge([1], now: .milliseconds(160))
        // Then it says nothing about the round trip: the timeout is still the one before any sample
        #expect(queue.timeout(of: "bob") == .milliseconds(200))
    }

    @Test func theLongestRoundTripOfAnAckBatchIsTheSample() {
        // Given items sent at 0, 30 and 35 ms, acknowledged in one batch, the oldest in the middle
        var queue = Queue()
        _ = queue.push(Self.items(1...1), now: .zero)
        _ = queue.push(Self.items(2...2), now: .milliseconds(30))
        _ = queue.push(Self.items(3...3), now: .milliseconds(35))
        _ = queue.acknowledge([2, 1, 3], now: .milliseconds(40))
        // Then the sample is item 1's 40 ms, not the first's or the last one's: timeout 40 + 4 × 20 ms
        #expect(queue.timeout(of: "bob") == .milliseconds(120))
    }

    @Test func aTimeoutHalvesTheWindowOncePerRoundNotOncePerItem() {
        var configuration = Queue.Configuration()
        configuration.minimumWindow = 8
        var queue = Queue(configuration: configuration)
        _ = queue.push(Self.items(1...64), now: .zero)
        // When all 64 time out together
        #expect(queue.takeDue(now: .milliseconds(200)).count == 64)
        // Then the window halved once
        #expect(queue.window(of: "bob") == 32)
    }

    @Test func anItemAckedWhileWaitingIsNeverSent() {
        var queue = Queue()
        _ = queue.push(Self.items(1...65), now: .zero)
        _ = queue.acknowledge([65], now: .milliseconds(1)) // arrived by sync before it was pushed
        #expect(queue.acknowledge([1], now: .milliseconds(2)).isEmpty)
        #expect(queue.count == 63)
    }

    @Test func givingUpOnAnItemOfASilentPeerDropsItsBacklogForSyncToRepair() {
        var queue = Queue()
        _ = queue.push(Self.items(1...100), now: .zero)
        var sends = 0
        for second in 1...200 { sends += queue.takeDue(now: .seconds(second)).count }
        // Each of the 64 in flight was retried maxAttempts − 1 times; the 36 waiting were never sent
        #expect(sends == 64 * (queue.configuration.maxAttempts - 1))
        #expect(queue.count == 0)
    }

    @Test func givingUpOnOneItemKeepsTheBacklogWhileThePeerStillAcks() {
        // Given a peer that acks one message a second (window held at 64) and never acks m1
        var configuration = Queue.Configuration()
        configuration.maximumWindow = 64
        var queue = Queue(configuration: configuration)
        var unacked = queue.push(Self.items(1...200), now: .zero).map(\.payload).filter { $0 != "m1" }
        var sent = Set(unacked)
        for second in 1...300 {
            let now = Duration.seconds(second)
            // Room freed by give-ups.
            let firstSends = queue.takeDue(now: now).map(\.payload).filter { !sent.contains($0) }
            unacked += firstSends
            sent.formUnion(firstSends)
            guard !unacked.isEmpty, let number = Int(unacked.removeFirst().dropFirst()) else { continue }
            // Not resends.
            let released = queue.acknowledge([Item(number)], now: now).map(\.payload).filter { !sent.contains($0) }
            unacked += released
            sent.formUnion(released)
        }
        // Then m1 is given up long before the backlog drains, yet every other message is still sent
        #expect(sent.isSuperset(of: (2...200).map { "m\($0)" }))
        #expect(queue.count == 0)
    }

    @Test func anItemOvertakenByLaterAcksIsSentAgainAtOnceAndKeepsItsTimeoutSchedule() {
        var queue = Queue()
        _ = queue.push(Self.items(1...10), now: .zero)
        // When 2…5 are acked and 1 is not
        let sends = queue.acknowledge((2...5).map { Item($0) }, now: .milliseconds(5))
        // Then 1 is taken as lost (three later transmissions were acked) and sent again now, and the
        // window still grew by four
        #expect(sends.map(\.payload) == ["m1"])
        #expect(queue.window(of: "bob") == 68)
        // and its timeout stays where it was: at 200 ms it is retried with the others still unacked
        #expect(Set(queue.takeDue(now: .milliseconds(200)).map(\.payload)) == Set(["m1"] + (6...10).map { "m\($0)" }))
    }
}
