public import Foundation
public import ParleyAPI
import ParleyCrypto
import Synchronization

/// Who may use the web app: the token (the owner's, for scripts: `Authorization: Bearer`), the
/// one-time login codes `parley web` prints, and the browser sessions they open.
///
/// - A code works once, within `codeLifetime`; codes live in memory only, so a restart forgets
///   every one (a code printed before it is refused after it: "works once" holds across restarts).
/// - A session ends after `sessionLifetime` unused, at logout, or at `revokeAll`. Sessions are kept
///   in `DATA/web-sessions` (hashes and expiries only) so a node restart logs nobody out.
/// - `revokeAll` also replaces the token, so a leaked token stops working too.
public final class WebAccess: WebFrontEndOwner, Sendable {
    public static let codeLifetime: TimeInterval = 60
    /// Like a mail or chat web client: a browser used at least once a month stays logged in.
    public static let sessionLifetime: TimeInterval = 30 * 24 * 3600
    /// A session's expiry is moved on (and the file rewritten) at most this often.
    static let renewalStep: TimeInterval = 24 * 3600

    /// The session cookie's name: one per node, so two nodes on one host (whose cookies a browser
    /// keeps together: cookies ignore ports) each keep their own login.
    public let cookieName: String
    private let dataDirectory: String?
    /// Held for the life of this object: no `parley web --revoke` rewrites the files under it.
    private let lock: WebDirectoryLock?
    private let now: @Sendable () -> Date
    private let state: Mutex<State>

    private struct State {
        var token: WebToken
        var served: WebAddress?
        /// By the hash of the code.
        var codes: [String: Date] = [:]
        /// By `WebSessionCredentials.key`.
        var sessions: [String: Date]
        var watchers: [UInt64: Watcher] = [:]
        var nextWatcher: UInt64 = 0
    }

    /// Something to do when a session ends (its open WebSockets close); `key` nil for a socket
    /// opened with the token, which only a revoke ends.
    private struct Watcher {
        let key: String?
        let onEnd: @Sendable () -> Void
    }

    /// The data directory's token (made on first use) and sessions. `dataDirectory` nil keeps
    /// everything in memory with a fresh token (tests, the benchmark).
    public init(dataDirectory: String?, nodeKey: String, now: @escaping @Sendable () -> Date = { Date() })
        throws(WebError)
    {
        self.cookieName = Self.cookieName(nodeKey: nodeKey)
        self.dataDirectory = dataDirectory
        self.lock = try dataDirectory.map { directory throws(WebError) in try WebDirectoryLock(dataDirectory: directory)
        }
        self.now = now
        let token =
            try dataDirectory.map { directory throws(WebError) in try WebToken.loadOrCreate(dataDirectory: directory) }
            ?? WebToken.generate()
        let sessions =
            try dataDirectory.map { directory throws(WebError) in
                try WebSessionFile.read(dataDirectory: directory, now: now())
            } ?? [:]
        state = Mutex(State(token: token, sessions: sessions))
    }

    /// `parley_` and the first 16 hex digits of the node's public key: stable across restarts and
    /// revokes (a key is public, so the name gives nothing away a peer would not know).
    public static func cookieName(nodeKey: String) -> String { "parley_\(nodeKey.prefix(16))" }

    public var token: WebToken { state.withLock { $0.token } }

    /// Where login links point: the address the server listens on, once it does.
    func serve(_ address: WebAddress) { state.withLock { $0.served = address } }

    // MARK: the owner's requests (over the control socket)

    public func loginLink() throws(WebError) -> WebLoginView {
        let code = Hex.encode(secureRandomBytes(count: WebSessionCredentials.byteCount))
        let served = try state.withLock { state throws(WebError) -> WebAddress in
            guard let served = state.served else { throw WebError("the web app is starting: try again in a moment") }
            let now = now()
            state.codes = state.codes.filter { $0.value > now }
            state.codes[Self.codeKey(code)] = now.addingTimeInterval(Self.codeLifetime)
            return served
        }
        return WebLoginView(url: "\(served.origin)/login?code=\(code)", expiresInSeconds: Int(Self.codeLifetime))
    }

    public func revokeAll() throws(WebError) -> WebRevokeView {
        let (ended, watchers) = try state.withLock { state throws(WebError) -> (Int, [Watcher]) in
            // Under the lock: two revokes at once would otherwise leave one's token in the file and
            // the other's in memory (and share one temporary file name).
            state.token =
                try dataDirectory.map { directory throws(WebError) in try WebToken.replace(dataDirectory: directory) }
                ?? WebToken.generate()
            let now = now()
            let ended = state.sessions.values.filter { $0 > now }.count
            state.codes = [:]
            state.sessions = [:]
            try persist(state.sessions)
            defer { state.watchers = [:] }
            return (ended, Array(state.watchers.values))
        }
        for watcher in watchers { watcher.onEnd() }
        return WebRevokeView(sessionsEnded: ended)
    }

    /// `parley web --revoke` when no node serves the web app: the same, on the files alone.
    public static func revokeOffline(dataDirectory: String) throws(WebError) -> WebRevokeView {
        let lock = try WebDirectoryLock(dataDirectory: dataDirectory)
        defer { withExtendedLifetime(lock) {} }
        let ended = try WebSessionFile.read(dataDirectory: dataDirectory, now: Date()).count
        _ = try WebToken.replace(dataDirectory: dataDirectory)
        // Emptied, not removed: a file that stays is an error, never a revoke that silently did not happen.
        try WebSessionFile.write([:], dataDirectory: dataDirectory)
        return WebRevokeView(sessionsEnded: ended)
    }

    // MARK: the browser's side

    /// Spends `code` and opens a session; nil when the code is wrong, used or expired (the three
    /// are told apart to nobody: a guesser learns nothing).
    func redeem(code: String) throws(WebError) -> WebSessionCredentials? {
        guard WebSessionCredentials.isWellFormed(code) else { return nil }
        return try state.withLock { state throws(WebError) -> WebSessionCredentials? in
            let now = now()
            guard let expiry = state.codes.removeValue(forKey: Self.codeKey(code)), expiry > now else { return nil }
            let credentials = WebSessionCredentials.generate()
            state.sessions[credentials.key] = now.addingTimeInterval(Self.sessionLifetime)
            try persist(state.sessions)
            return credentials
        }
    }

    /// Whether the session is live; using it moves its expiry on.
    func isLive(_ credentials: WebSessionCredentials) -> Bool {
        let key = credentials.key
        let (live, expired) = state.withLock { state -> (Bool, [Watcher]) in
            let now = now()
            guard let expiry = state.sessions[key] else { return (false, []) }
            guard expiry > now else {
                state.sessions[key] = nil
                try? persist(state.sessions)
                // Its sockets end too: only requests renew a session, so a socket can outlive it.
                return (false, Self.removeWatchers(of: key, from: &state))
            }
            let renewed = now.addingTimeInterval(Self.sessionLifetime)
            if renewed.timeIntervalSince(expiry) >= Self.renewalStep {
                state.sessions[key] = renewed
                // A failed write leaves the file's older expiry, which only a restart would go by.
                try? persist(state.sessions)
            }
            return (true, [])
        }
        for watcher in expired { watcher.onEnd() }
        return live
    }

    /// Logout: ends the session (a session that is not live is left as it is) and closes its WebSockets.
    func end(_ credentials: WebSessionCredentials) throws(WebError) {
        let key = credentials.key
        let watchers = try state.withLock { state throws(WebError) -> [Watcher] in
            guard state.sessions.removeValue(forKey: key) != nil else { return [] }
            try persist(state.sessions)
            return Self.removeWatchers(of: key, from: &state)
        }
        for watcher in watchers { watcher.onEnd() }
    }

    /// Unregisters the session's sockets; the caller ends them once the lock is released.
    private static func removeWatchers(of key: String, from state: inout State) -> [Watcher] {
        let ending = state.watchers.filter { $0.value.key == key }
        for id in ending.keys { state.watchers[id] = nil }
        return Array(ending.values)
    }

    /// Runs `body` (a WebSocket's life) until it returns or the session it was opened with ends,
    /// whichever comes first. nil credentials (a script with the token, `bearer`): until a revoke.
    func whileLive(_ credentials: WebSessionCredentials?, bearer: String?, _ body: @escaping @Sendable () async -> Void)
        async
    {
        let task = Task { await body() }
        let watcher = watch(credentials?.key, bearer: bearer) { task.cancel() }
        await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        if let watcher { state.withLock { _ = $0.watchers.removeValue(forKey: watcher) } }
    }

    /// Registers `onEnd` for the session's end (`key` nil: the token's, at a revoke); a session
    /// already ended, or a token already replaced, calls it at once (nil). Checked again here, under
    /// the lock, because a revoke or logout may come between the front door's check and this.
    private func watch(_ key: String?, bearer: String?, onEnd: @escaping @Sendable () -> Void) -> UInt64? {
        let id = state.withLock { state -> UInt64? in
            if let key {
                guard state.sessions[key] != nil else { return nil }
            } else {
                guard let bearer, state.token.matches(bearer) else { return nil }
            }
            state.nextWatcher += 1
            state.watchers[state.nextWatcher] = Watcher(key: key, onEnd: onEnd)
            return state.nextWatcher
        }
        if id == nil { onEnd() }
        return id
    }

    /// Called with the lock held, so the file follows the same order as the changes.
    private func persist(_ sessions: [String: Date]) throws(WebError) {
        guard let dataDirectory else { return }
        try WebSessionFile.write(sessions, dataDirectory: dataDirectory)
    }

    private static func codeKey(_ code: String) -> String {
        Hex.encode(BLAKE2b.hash256(Array("parley-web-code\u{0}\(code)".utf8)))
    }
}
