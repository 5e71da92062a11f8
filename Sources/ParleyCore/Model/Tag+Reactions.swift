extension Tag {
    /// A reaction to a message, or the removal of one (docs/REACTIONS.md); it references its target with this tag too.
    public static let reaction = Tag(known: "Reaction")
}
