import Foundation

/// `DATA/web-sessions` (mode 0600): the live sessions, so a node restart does not log a browser out.
/// One line per session, `KEY EXPIRY`: the hash of its credentials (never the credentials) and when
/// it ends, in Unix seconds. Rewritten whole on every login, logout, revoke and renewal.
enum WebSessionFile {
    static let fileName = "web-sessions"

    static func path(dataDirectory: String) -> String { "\(dataDirectory)/\(fileName)" }

    /// The sessions still live at `now`; none when there is no file. A line that is no session is
    /// left out (the file is the node's own: a damaged line can only log one browser out).
    static func read(dataDirectory: String, now: Date) throws(WebError) -> [String: Date] {
        let path = path(dataDirectory: dataDirectory)
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        let mode = (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0o777
        guard mode & 0o077 == 0 else {
            throw WebError(
                "web sessions \(path): group or others may read it (mode \(String(mode & 0o777, radix: 8))); chmod 600 it, or delete it to log every browser out"
            )
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw WebError("web sessions \(path): cannot read it")
        }
        var sessions: [String: Date] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 2, WebSessionCredentials.isWellFormed(fields[0]), let seconds = Int64(fields[1])
            else { continue }
            let expiry = Date(timeIntervalSince1970: TimeInterval(seconds))
            if expiry > now { sessions[String(fields[0])] = expiry }
        }
        return sessions
    }

    static func write(_ sessions: [String: Date], dataDirectory: String) throws(WebError) {
        let lines = sessions.sorted { $0.key < $1.key }.map {
            "\($0.key) \(Int64($0.value.timeIntervalSince1970.rounded(.up)))\n"
        }
        try PrivateFile.replace(
            path: path(dataDirectory: dataDirectory), contents: lines.joined(), what: "web sessions")
    }
}
