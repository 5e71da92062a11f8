import HTTPTypes

/// Which method each path takes, so a request for a path that exists, with another method, is
/// answered 405 with `Allow` rather than 404: the router only knows "no route".
struct RouteMethods: Sendable {
    /// The page's files and `/login` (`/logout` is the one page path that takes POST).
    let pagePaths: Set<String>

    /// The method `path` takes, or nil when there is no such path.
    func allowed(for path: String) -> HTTPRequest.Method? {
        if path == "/api/ws" { return .get }
        if path == "/logout" { return .post }
        if Self.isFileDownload(path) { return .get }
        if path.hasPrefix("/api/"), !path.dropFirst("/api/".count).contains("/") { return .post }
        return pagePaths.contains(path) ? .get : nil
    }

    /// `/api/files/CHAT/FILE` and `/api/pictures/CHAT/FILE`.
    static func isFileDownload(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 5 && parts[0].isEmpty && parts[1] == "api"
            && (parts[2] == "files" || parts[2] == "pictures")
            && !parts[3].isEmpty && !parts[4].isEmpty
    }
}
