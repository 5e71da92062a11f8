import ParleyCore
import Testing

/// A node's clock for a chat (PROTOCOL §11): it takes in plausible claims only, and saturates.
struct ChatClockTests {
    @Test func aClaimRaisesTheClockOnlyWithinOneStepAboveIt() {
        #expect(ChatClock.observing(9, at: 5) == 9)
        #expect(ChatClock.observing(3, at: 5) == 5)
        #expect(ChatClock.observing(5 + ChatClock.maxStep, at: 5) == 5 + ChatClock.maxStep)
        #expect(ChatClock.observing(6 + ChatClock.maxStep, at: 5) == 5)
        #expect(ChatClock.observing(ChatClock.max, at: 5) == 5)
    }

    @Test func theNextClockSaturatesSoSendingNeverStops() {
        #expect(ChatClock.next(after: 7) == 8)
        #expect(ChatClock.next(after: ChatClock.max - 1) == ChatClock.max)
        #expect(ChatClock.next(after: ChatClock.max) == ChatClock.max)
    }
}
