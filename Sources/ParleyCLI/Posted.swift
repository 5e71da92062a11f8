import ParleyAPI

/// What the full screen and line mode need of any posting request's reply: the new message's id,
/// and (on `send`) the members nothing can reach. Posting requests answer with different views (a
/// message view; a poll view for `pollCreate`), and every one of them carries `id`.
struct Posted: Codable, Sendable {
    let id: String
    let noRoute: [MemberView]?
}
