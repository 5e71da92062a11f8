import ParleyCore
import ParleyStore

/// Counting what members' edits, deletions and pins would do that the rules refuse (§13d, §16).
extension Node {
    /// The refusals among stored amendments whose target is held, by reason. Such messages stay
    /// stored (every member stores them, and refusing them would make stores depend on arrival
    /// order); no node shows what they ask. An amendment that arrives before its target waits for
    /// it, counted by nothing: the rules apply to it once the target is here.
    func amendmentRefusals(_ stored: [Message]) throws -> [ProtocolRejection: Int] {
        var refused: [ProtocolRejection: Int] = [:]
        for message in stored {
            guard let target = AmendmentTarget.of(message, tag: message.tag),
                let held = try store.message(target)?.message
            else {
                if message.references.count(where: { $0.tag == message.tag }) != 1 {
                    refused[.amendmentNotApplicable, default: 0] += 1
                }
                continue
            }
            let refusal: AmendmentRefusal? =
                switch message.tag {
                case .edit: EditRules.refusal(of: message, target: held)
                case .delete:
                    try store.membership(of: message.chat).flatMap {
                        DeleteRules.refusal(of: message, target: held, creator: $0.creator)
                    }
                default: PinRules.refusal(of: message, target: held)
                }
            switch refusal {
            case nil: break
            case .notAuthor: refused[.editNotAuthor, default: 0] += 1
            case .notAllowed: refused[.deleteNotAllowed, default: 0] += 1
            case .otherChat, .notEditable, .notDeletable, .notPinnable, .malformed:
                refused[.amendmentNotApplicable, default: 0] += 1
            }
        }
        return refused
    }
}
