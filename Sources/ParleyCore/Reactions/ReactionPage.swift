/// One page of reactions, newest first; `next` is the cursor for the following page.
public struct ReactionPage: Hashable, Sendable {
    public let items: [Reaction]
    public let next: PageCursor?
}
