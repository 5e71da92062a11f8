import ParleyCore
import Testing

/// A recent set keeps the last `capacity` distinct elements and forgets the oldest first.
struct RecentSetTests {
    @Test func theOldestLeaveFirstAndARepeatTakesNoRoom() {
        var recent = RecentSet<Int>(capacity: 3)
        for element in [1, 2, 2, 3] { recent.insert(element) }
        #expect(recent.count == 3)
        recent.insert(4)
        #expect(!recent.contains(1))
        #expect([2, 3, 4].allSatisfy(recent.contains))
        #expect(recent.count == 3)
    }
}
