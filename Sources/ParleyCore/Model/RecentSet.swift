import DequeModule

/// The last `capacity` distinct elements inserted, to answer "was this seen lately?" from memory.
/// The oldest leave first; inserting one already held changes nothing.
public struct RecentSet<Element: Hashable & Sendable>: Sendable {
    public let capacity: Int
    private var order = Deque<Element>()
    private var members = Set<Element>()

    public init(capacity: Int) {
        precondition(capacity > 0, "a recent set holds at least one element")
        self.capacity = capacity
    }

    public var count: Int { members.count }

    public func contains(_ element: Element) -> Bool { members.contains(element) }

    public mutating func insert(_ element: Element) {
        guard members.insert(element).inserted else { return }
        order.append(element)
        if order.count > capacity, let oldest = order.popFirst() { members.remove(oldest) }
    }
}
