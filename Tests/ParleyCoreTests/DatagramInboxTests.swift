import ParleyCore
import ParleyTestKit
import Testing

@Suite(.timeLimit(.minutes(3))) struct DatagramInboxTests {
    private func datagrams(_ range: Range<Int>) -> [Datagram] {
        range.map {
            Datagram(address: PeerAddress(host: "127.0.0.1", port: 9000), bytes: [UInt8(truncatingIfNeeded: $0)])
        }
    }

    @Test func aBusyConsumerGetsEverythingThatArrivedMeanwhileAsOneBatchInOrder() async {
        // Given three reads delivered while nobody was waiting
        let inbox = DatagramInbox()
        inbox.deliver(datagrams(0..<3))
        inbox.deliver(datagrams(3..<5))
        inbox.deliver(datagrams(5..<9))

        // Then the next batch holds all nine, in arrival order, and nothing is left
        #expect(await inbox.next()?.map(\.bytes) == datagrams(0..<9).map(\.bytes))
        #expect(inbox.poll() == nil)
    }

    @Test func aWaitingConsumerIsWokenByTheNextRead() async throws {
        let inbox = DatagramInbox()
        let consumer = Task { await inbox.next() }
        try await Task.sleep(for: .milliseconds(20)) // most likely waiting by now; either way it gets the read
        inbox.deliver(datagrams(0..<2))
        #expect(await consumer.value?.count == 2)
    }

    @Test func aBatchIsCappedAndTheRestFollows() async {
        let inbox = DatagramInbox()
        inbox.deliver(datagrams(0..<(DatagramInbox.maxBatch + 10)))
        #expect(await inbox.next()?.count == DatagramInbox.maxBatch)
        #expect(await inbox.next()?.count == 10)
    }

    @Test func aFullInboxDropsTheNewestAndSaysHowMany() async {
        let inbox = DatagramInbox(capacity: 5)
        #expect(inbox.deliver(datagrams(0..<3)) == 0)
        #expect(inbox.deliver(datagrams(3..<7)) == 2)
        #expect(await inbox.next()?.map(\.bytes) == datagrams(0..<5).map(\.bytes))
    }

    @Test func finishingEndsTheSequenceAfterWhatIsPending() async {
        let inbox = DatagramInbox()
        inbox.deliver(datagrams(0..<2))
        inbox.finish()
        #expect(inbox.deliver(datagrams(2..<3)) == 1)
        var batches: [[Datagram]] = []
        for await batch in inbox { batches.append(batch) }
        #expect(batches.map(\.count) == [2])
    }

    @Test func cancellingAWaitingConsumerEndsItsWait() async {
        let inbox = DatagramInbox()
        let consumer = Task { await inbox.next() }
        consumer.cancel()
        #expect(await consumer.value == nil)
    }
}

extension DatagramInboxTests {
    @Test func aCancelledConsumerStopsEvenWhileDatagramsKeepArriving() async {
        let inbox = DatagramInbox()
        inbox.deliver(datagrams(0..<3))
        let consumer = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await inbox.next()
        }
        #expect(await consumer.value == nil)
        #expect(inbox.poll()?.count == 3)
    }

    @Test func theQueueDelayIsHowLongTheOldestInputWaitedAndZeroOnceTheConsumerWaitsAgain() async {
        // Given an inbox on a clock the test moves
        let clock = ManualClock()
        let inbox = DatagramInbox(now: { clock.now })
        #expect(inbox.queueDelay == .zero)
        // When two reads arrive 30 ms apart and wait 50 ms more
        inbox.deliver(datagrams(0..<2))
        clock.advance(by: .milliseconds(30))
        inbox.deliver(datagrams(2..<3))
        clock.advance(by: .milliseconds(50))
        // Then the delay is the oldest one's wait, and stays that of the batch while it is handled
        #expect(inbox.queueDelay == .milliseconds(80))
        #expect(inbox.poll()?.count == 3)
        clock.advance(by: .milliseconds(500))
        #expect(inbox.queueDelay == .milliseconds(80))
        // And once the consumer waits for more, nothing waits here
        let consumer = Task { await inbox.next() }
        while !inbox.isIdle { await Task.yield() }
        #expect(inbox.queueDelay == .zero)
        inbox.deliver(datagrams(3..<4))
        #expect(await consumer.value?.count == 1)
    }

    @Test func aConsumerWithWorkRunningBesideItsWaitIsNotIdle() async {
        // Given a consumer waiting for input
        let inbox = DatagramInbox()
        let consumer = Task { await inbox.next() }
        while !inbox.isIdle { await Task.yield() }

        // When it has a commit running beside its wait, it is not idle until that ends
        inbox.besideBegins()
        #expect(!inbox.isIdle)
        inbox.besideEnds()
        #expect(inbox.isIdle)
        inbox.deliver(datagrams(0..<1))
        #expect(await consumer.value?.count == 1)
    }

    @Test func aBatchTakenWhileWorkRunsBesideWaitsUntilThatWorkEnds() {
        // Given a consumer committing a burst beside, and a read arriving 10 ms into that commit
        let clock = ManualClock()
        let inbox = DatagramInbox(now: { clock.now })
        inbox.besideBegins()
        clock.advance(by: .milliseconds(10))
        inbox.deliver(datagrams(0..<2))
        // When it takes the read at once and the commit goes on 40 ms more
        #expect(inbox.poll()?.count == 2)
        clock.advance(by: .milliseconds(40))

        // Then the read counts as waiting all that time: it is handled only once the commit ends
        #expect(inbox.queueDelay == .milliseconds(40))
        inbox.besideEnds()
        clock.advance(by: .milliseconds(5))
        // And once it is being handled, that is its batch's wait
        #expect(inbox.queueDelay == .milliseconds(40))
    }

    @Test func aConsumerWaitingForInputWithACommitBesideStillReportsTheBatchItHandles() async {
        // Given a batch that waited 80 ms, and its consumer waiting for more
        let clock = ManualClock()
        let inbox = DatagramInbox(now: { clock.now })
        inbox.deliver(datagrams(0..<1))
        clock.advance(by: .milliseconds(80))
        #expect(inbox.poll()?.count == 1)
        let consumer = Task { await inbox.next() }
        while !inbox.isIdle { await Task.yield() }
        #expect(inbox.queueDelay == .zero)

        // When that batch commits beside the wait, its wait is reported until the commit ends
        inbox.besideBegins()
        #expect(inbox.queueDelay == .milliseconds(80))
        inbox.besideEnds()
        #expect(inbox.queueDelay == .zero)
        inbox.deliver(datagrams(1..<2))
        #expect(await consumer.value?.count == 1)
    }
}
