extension Tag {
    /// A file or picture: its manifest (`FileManifest`, PROTOCOL.md §13e); the bytes travel as chunks.
    public static let file = Tag(known: "File")
}
