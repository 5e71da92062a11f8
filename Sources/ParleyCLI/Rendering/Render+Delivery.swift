import ParleyAPI

extension Render {
    /// Where one of this node's own messages stands, as the text list and the full screen show it
    /// after the text: " ✓" stored and sent, " ✓✓" delivered to every other member (" ✓✓ 1/2" to
    /// some), then " read" once every other member sent a read receipt (" read 1/2" some). Nothing
    /// for others' messages (they carry no receipts here), nor with no one else in the chat to reach.
    static func ticks(_ message: MessageView) -> String {
        guard message.state != "received", message.recipients > 0 else { return "" }
        let total = message.recipients
        let read = min(message.readBy, total)
        // "delivered" was settled against the members of the time; a read receipt proves delivery
        // even when the acknowledgement itself was lost.
        let delivered = message.state == "delivered" ? total : min(max(message.deliveredTo, read), total)
        guard delivered > 0 else { return " ✓" }
        var ticks = delivered == total ? " ✓✓" : " ✓✓ \(delivered)/\(total)"
        if read == total {
            ticks += " read"
        } else if read > 0 {
            ticks += " read \(read)/\(total)"
        }
        return ticks
    }
}
