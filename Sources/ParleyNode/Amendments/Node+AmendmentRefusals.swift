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
        for wire in stored {
            // The rules read content (a pin's byte): the opened message, not the sealed one on the wire.
            let message = try store.message(wire.id)?.message ?? wire
            let target = try AmendmentTarget.of(message, tag: message.tag).flatMap { try store.message($0)?.message }
            let creator = message.tag == .delete ? try store.membership(of: message.chat)?.creator : nil
            if let reason = AmendmentRefusal.rejection(of: message, target: target, creator: creator) {
                refused[reason, default: 0] += 1
            }
        }
        return refused
    }
}
