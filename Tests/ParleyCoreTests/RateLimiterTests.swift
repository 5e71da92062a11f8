import ParleyCore
import Testing

/// The per-source token buckets, driven by a clock the test sets: no sleeping, no timing.
struct RateLimiterTests {
    let mallory = PeerAddress(host: "10.0.0.66", port: 7001)
    let alice = PeerAddress(host: "10.0.0.1", port: 7001)

    /// How many of `count` datagrams spread evenly over `seconds` are admitted.
    func admitted(
        _ limiter: inout RateLimiter, _ kind: RateLimiter.Class, from source: PeerAddress, count: Int,
        over seconds: Double, start: Duration = .zero
    ) -> Int {
        (0..<count).count { index in
            let now = start + .nanoseconds(Int64(Double(index) / Double(count) * seconds * 1e9))
            return limiter.admit(kind, from: source, now: now)
        }
    }

    @Test func aSessionPeerBurstingThirtyThousandDatagramsASecondIsNeverLimited() {
        // Given the default limits
        var limiter = RateLimiter()
        // When one peer with a session sends 30,000 datagrams a second for three seconds
        let passed = admitted(&limiter, .session, from: alice, count: 90_000, over: 3)
        // Then every one is admitted
        #expect(passed == 90_000)
    }

    @Test func aHandshakeFloodFromOneSourceIsCutToItsBurstThenItsRate() {
        // Given the default limits (burst 50, 20 a second per source)
        var limiter = RateLimiter()
        // When one source sends 10,000 handshake datagrams at one instant
        let atOnce = admitted(&limiter, .handshake, from: mallory, count: 10_000, over: 0)
        // Then only the burst passes
        #expect(atOnce == 50)
        // and over the next ten seconds it gets its rate, no more
        let later = admitted(&limiter, .handshake, from: mallory, count: 10_000, over: 10, start: .seconds(1))
        #expect((200...221).contains(later), "got \(later)")
    }

    @Test func oneSourcesFloodLeavesAnotherSourcesBudgetWhole() {
        // Given mallory has used up every bucket of hers
        var limiter = RateLimiter()
        for kind in RateLimiter.Class.allCases { _ = admitted(&limiter, kind, from: mallory, count: 60_000, over: 0) }
        let malloryAgain = limiter.admit(.handshake, from: mallory, now: .zero)
        #expect(!malloryAgain)
        // When alice, at another address, speaks at the same instant
        // Then she is admitted in every class
        for kind in RateLimiter.Class.allCases {
            let admitted = limiter.admit(kind, from: alice, now: .zero)
            #expect(admitted, "\(kind)")
        }
    }

    @Test func theSameHostOnAnotherPortIsAnotherSource() {
        // Given mallory exhausted her handshake budget from one port
        var limiter = RateLimiter()
        _ = admitted(&limiter, .handshake, from: mallory, count: 100, over: 0)
        // When a node on the same host but another port handshakes
        // Then it has its own budget (nodes on one machine, as in tests, do not starve each other)
        let neighbour = limiter.admit(.handshake, from: PeerAddress(host: mallory.host, port: 7002), now: .zero)
        #expect(neighbour)
    }

    @Test func sourcesThatRotateAddressesStillHitTheTotalHandshakeBudget() {
        // Given a total handshake budget of 1,000 at once
        var limiter = RateLimiter()
        // When 5,000 sources each send 10 handshakes at one instant
        var passed = 0
        for index in 0..<5_000 {
            let source = PeerAddress(host: "10.1.\(index / 256).\(index % 256)", port: 7001)
            passed += admitted(&limiter, .handshake, from: source, count: 10, over: 0)
        }
        // Then no more than the total burst is admitted
        #expect(passed == 1_000)
        // and the sources tracked stay bounded
        #expect(limiter.trackedSources <= RateLimiter.Configuration().maxSources)
    }

    @Test func limitsAreConfigured() {
        // Given a limiter allowing 2 handshakes and then one a second
        var configuration = RateLimiter.Configuration()
        configuration.handshakePerSource = .init(rate: 1, burst: 2)
        var limiter = RateLimiter(configuration: configuration)
        // When three arrive at once, and one more 1.5 s later
        let first = (0..<3).map { _ in limiter.admit(.handshake, from: mallory, now: .zero) }
        let later = limiter.admit(.handshake, from: mallory, now: .milliseconds(1_500))
        // Then the first two pass, the third is refused, and the refill lets the fourth pass
        #expect(first == [true, true, false])
        #expect(later)
    }
}
