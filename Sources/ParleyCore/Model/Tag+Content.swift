extension Tag {
    /// Application-defined content: a JSON object or array (`ContentKind.validateCustom`).
    public static let custom = Tag(known: "Custom")
}
