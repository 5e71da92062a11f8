internal import GRDB
import ParleyCore

/// The SQL for a criteria query: one shape per combination, each answered by an index (see the schema).
/// By reference → `message_refs_by_target` or `message_refs_by_tag`, then primary-key lookups;
/// by tag (or a few tags) → `messages_by_tag`; the whole chat, and paging by local number before or after
/// a cursor → the (chat_id, local_number) unique index; in history order → `messages_by_history_clock`.
struct CriteriaQuery {
    /// What follows `SELECT … FROM messages m`.
    private(set) var tail: String
    private(set) var arguments: StatementArguments = []
    /// With a limit the latest rows are read backwards from the end of the index, then put back in order.
    let newestFirst: Bool

    init(_ criteria: MessageCriteria) {
        var conditions: [String]
        if criteria.referencing != nil || criteria.referenceTag != nil || criteria.referencingAny != nil
            || criteria.referenceTags != nil
        {
            var refConditions = ["r.chat_id = ?"]
            arguments += [criteria.chat.blob]
            if let target = criteria.referencing {
                refConditions.append("r.ref_id = ?")
                arguments += [target.blob]
            }
            if let targets = criteria.referencingAny {
                refConditions.append("r.ref_id IN (\(Self.placeholders(targets.count)))")
                arguments += StatementArguments(targets.map(\.blob))
            }
            if let referenceTag = criteria.referenceTag {
                refConditions.append("r.ref_tag = ?")
                arguments += [referenceTag.rawValue]
            }
            if let referenceTags = criteria.referenceTags {
                refConditions.append("r.ref_tag IN (\(Self.placeholders(referenceTags.count)))")
                arguments += StatementArguments(referenceTags.map(\.rawValue))
            }
            if let tag = criteria.tag {
                refConditions.append("r.msg_tag = ?")
                arguments += [tag.rawValue]
            }
            // The message's tags again on its references (`msg_tag`, the index's last column): a
            // poll's thousands of votes are then passed over in the index, not read one by one.
            if let tags = criteria.tags {
                refConditions.append("r.msg_tag IN (\(Self.placeholders(tags.count)))")
                arguments += StatementArguments(tags.map(\.rawValue))
            }
            let candidates = "SELECT r.message_id FROM message_refs r WHERE \(refConditions.joined(separator: " AND "))"
            conditions = ["m.id IN (\(candidates))"]
        } else {
            conditions = ["m.chat_id = ?"]
            arguments += [criteria.chat.blob]
            if let tag = criteria.tag {
                conditions.append("m.tag = ?")
                arguments += [tag.rawValue]
            }
        }
        if let tags = criteria.tags {
            conditions.append("m.tag IN (\(Self.placeholders(tags.count)))")
            arguments += StatementArguments(tags.map(\.rawValue))
        }
        if criteria.withoutDeletedForMe {
            conditions.append(
                "NOT EXISTS (SELECT 1 FROM local_data l WHERE l.message_id = m.id AND l.key = '\(MessageCriteria.deletedForMeKey)')"
            )
        }
        if criteria.withoutForked {
            conditions.append(MessageStore.notForked)
        }
        if let after = criteria.afterLocalNumber {
            conditions.append("m.local_number > ?")
            arguments += [after]
        }
        if let before = criteria.beforeLocalNumber {
            conditions.append("m.local_number < ?")
            arguments += [before]
        }
        // History positions compare as SQLite row values: integers by value, author blobs bytewise. The
        // clock's bound alone is repeated so that SQLite searches the index from it instead of filtering.
        let clock = MessageStore.historyClock(of: "m")
        if let after = criteria.afterPosition {
            conditions.append("\(clock) >= ? AND (\(clock), m.author, m.seq) > (?, ?, ?)")
            let afterClock = Int64(clamping: after.lamport)
            arguments += [afterClock, afterClock, after.author.blob, Int64(clamping: after.sequence)]
        }
        if let before = criteria.beforePosition {
            conditions.append("\(clock) <= ? AND (\(clock), m.author, m.seq) < (?, ?, ?)")
            let beforeClock = Int64(clamping: before.lamport)
            arguments += [beforeClock, beforeClock, before.author.blob, Int64(clamping: before.sequence)]
        }
        tail = "WHERE \(conditions.joined(separator: " AND "))"
        let ascending = criteria.order == .history ? "\(clock), m.author, m.seq" : "m.local_number"
        let descending = criteria.order == .history ? "\(clock) DESC, m.author DESC, m.seq DESC" : "m.local_number DESC"
        if let limit = criteria.limit, criteria.oldestFirst {
            tail += " ORDER BY \(ascending) LIMIT ?"
            arguments += [max(0, limit)]
            newestFirst = false
        } else if let limit = criteria.limit {
            tail += " ORDER BY \(descending) LIMIT ?"
            arguments += [max(0, limit)]
            newestFirst = true
        } else {
            tail += " ORDER BY \(ascending)"
            newestFirst = false
        }
    }

    /// One placeholder per value (`NULL` for none, which matches nothing): a handful of shapes, each prepared once.
    private static func placeholders(_ count: Int) -> String {
        count == 0 ? "NULL" : Array(repeating: "?", count: count).joined(separator: ", ")
    }

}
