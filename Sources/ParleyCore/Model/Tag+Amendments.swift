extension Tag {
    /// A new text for a Text message of the same author (PROTOCOL.md §13d); references its target with this tag.
    public static let edit = Tag(known: "Edit")
    /// Deletes a message for everyone: by its author, or by the chat's creator as a moderator (§13d).
    public static let delete = Tag(known: "Delete")
    /// Pins or unpins a message for the whole chat: any member may (§13d).
    public static let pin = Tag(known: "Pin")
}
