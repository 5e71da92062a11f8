internal import Foundation
internal import GRDB
public import ParleyCore

extension MessageStore {
    /// The most words one search looks for, and the longest text it takes.
    public static let maxSearchWords = 16
    public static let maxSearchBytes = 1_000
    /// The most hits one page holds.
    public static let maxSearchLimit = 200

    /// The messages whose indexed text holds every word of `text` (each as a word prefix, case and
    /// diacritics ignored), newest first: by when this node stored the matching text. The text is
    /// plain words, never FTS5 syntax (`SearchText.matchQuery`).
    ///
    /// An `Edit` counts only when its author wrote its target, and is reported as its target. A message
    /// is found by its latest text only: an earlier version (the original, or an edit followed by a
    /// later one) is left out, so an edit made to remove words makes them unfindable. `chat`, `author`
    /// and `tag` filter the message found; `before` is the `matched` id of the previous page's last hit.
    /// `withoutForked` leaves out members' messages from their fork on, as shown histories do.
    ///
    /// It reads only what the index holds: callers run `indexForSearch` until it is caught up first.
    public func search(
        text: String, chat: ChatID? = nil, author: PeerID? = nil, tag: Tag? = nil, limit: Int = 25,
        before: MessageID? = nil, withoutForked: Bool = false
    ) throws(StoreError) -> [SearchHit] {
        guard text.utf8.count <= Self.maxSearchBytes else {
            throw .invalid("search text is longer than \(Self.maxSearchBytes) bytes")
        }
        guard let match = SearchText.matchQuery(text) else {
            throw .invalid("search text has no word to look for: give at least one word with a letter or a digit")
        }
        guard match.split(separator: " ").count <= Self.maxSearchWords else {
            throw .invalid("search text has more than \(Self.maxSearchWords) words")
        }
        guard (1...Self.maxSearchLimit).contains(limit) else {
            throw .invalid("search limit must be between 1 and \(Self.maxSearchLimit)")
        }
        // Never the text itself in an error's context: search text is not logged.
        return try read("searching messages") { db in
            var arguments: StatementArguments = [match]
            var conditions: [String] = []
            if let before {
                guard
                    let row = try Int64.fetchOne(
                        db, sql: "SELECT rowid FROM messages WHERE id = ?", arguments: [before.blob])
                else { throw StoreError.unknownMessage(before.shortHex) }
                conditions.append("s.rowid < ?")
                arguments += [row]
            }
            if let chat {
                conditions.append("v.chat_id = ?")
                arguments += [chat.blob]
            }
            if let author {
                conditions.append("t.author = ?")
                arguments += [author.blob]
            }
            if let tag {
                conditions.append("t.tag = ?")
                arguments += [tag.rawValue]
            }
            if withoutForked { conditions.append(Self.notForked(as: "v")) }
            arguments += [limit]
            let found = try Row.fetchAll(
                db.cachedStatement(sql: Self.searchSQL(conditions: conditions, withoutForked: withoutForked)),
                arguments: arguments)
            var hits: [SearchHit] = []
            for row in found {
                let target = try MessageID.fromBlob(row["target_id"], "a search hit")
                let matched = try MessageID.fromBlob(row["version_id"], "a search hit")
                guard let stored = try Self.fetchStored(db, "WHERE m.id = ?", [target.blob]).first else { continue }
                hits.append(
                    SearchHit(stored: stored, matched: matched, snippet: SearchText.parts(ofSnippet: row["snippet"])))
            }
            return hits
        }
    }

    /// The search: the FTS5 table read newest row first (`CROSS JOIN` keeps it the outer loop, so the
    /// limit stops the scan), each matching text's message `v` and the message found `t` (an edit's
    /// target, written by the edit's author), left out when a later edit of `t` replaced the text.
    private static func searchSQL(conditions: [String], withoutForked: Bool) -> String {
        let edit = SearchText.editTag
        let laterEdit = """
            SELECT 1 FROM message_refs r2 CROSS JOIN messages e ON e.id = r2.message_id
            WHERE r2.chat_id = t.chat_id AND r2.ref_id = t.id AND r2.ref_tag = '\(edit)' AND r2.msg_tag = '\(edit)'
                AND e.author = t.author AND e.seq > v.seq AND length(e.content) > 0
                \(withoutForked ? "AND " + notForked(as: "e") : "")
            """
        return """
            SELECT v.id AS version_id, t.id AS target_id,
                snippet(message_search, 0, char(1), char(2), '…', 12) AS snippet
            FROM message_search s
            CROSS JOIN messages v ON v.rowid = s.rowid
            CROSS JOIN messages t ON t.id = CASE WHEN v.tag = '\(edit)'
                THEN (SELECT r.ref_id FROM message_refs r WHERE r.message_id = v.id AND r.ref_tag = '\(edit)' LIMIT 1)
                ELSE v.id END
            WHERE message_search MATCH ? AND t.chat_id = v.chat_id AND t.author = v.author AND t.tag != '\(edit)'
                AND NOT EXISTS (\(laterEdit))
                \(conditions.map { "AND \($0)" }.joined(separator: " "))
            ORDER BY s.rowid DESC LIMIT ?
            """
    }

    /// `notForked` for a `messages` row under another alias.
    private static func notForked(as alias: String) -> String {
        "NOT EXISTS (SELECT 1 FROM fork_proofs f WHERE f.chat_id = \(alias).chat_id AND f.author = \(alias).author AND f.seq <= \(alias).seq)"
    }
}
