/// What a receiver counts for an edit, deletion or pin the rules refuse (PROTOCOL.md §13d, §16): one
/// pure function, so the node's counters and the published vectors come from the same rules.
extension AmendmentRefusal {
    /// The rejection counter this refusal is counted under.
    public var rejection: ProtocolRejection {
        switch self {
        case .notAuthor: .editNotAuthor
        case .notAllowed: .deleteNotAllowed
        case .otherChat, .notEditable, .notDeletable, .notPinnable, .malformed: .amendmentNotApplicable
        }
    }

    /// The counter an `Edit`, `Delete` or `Pin` message is refused under as it is stored, or nil.
    /// - Parameters:
    ///   - target: the message it names (`AmendmentTarget`), when held. One that names none, or
    ///     several, is refused at once; one whose target is not held waits, counted by nothing.
    ///   - creator: the chat's creator, when its membership is held (deletions only).
    public static func rejection(of amendment: Message, target: Message?, creator: PeerID?) -> ProtocolRejection? {
        guard AmendmentTarget.of(amendment, tag: amendment.tag) != nil else { return .amendmentNotApplicable }
        guard let target else { return nil }
        let refusal: AmendmentRefusal? =
            switch amendment.tag {
            case .edit: EditRules.refusal(of: amendment, target: target)
            case .delete: creator.flatMap { DeleteRules.refusal(of: amendment, target: target, creator: $0) }
            default: PinRules.refusal(of: amendment, target: target)
            }
        return refusal?.rejection
    }
}
