extension Tag {
    /// A group chat's member list for a new epoch, with its new key sealed to each member (`MembershipChange`).
    public static let membership = Tag(known: "Membership")
}
