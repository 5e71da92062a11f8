import Foundation

/// One file of the page, ready to serve: its bytes and its Content-Type.
public struct WebAsset: Sendable, Hashable {
    public let bytes: [UInt8]
    public let contentType: String
}

/// Why the page's files could not be loaded.
public struct WebAppError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String
}

/// The page (`Assets/`: HTML, CSS, JavaScript modules) as shipped in this module's resources.
///
/// Every file is read once, at start, into memory (the page is a few tens of KiB), and served by
/// exact path lookup: no path from a request ever reaches the file system, so `..` and friends
/// cannot name anything outside the catalog.
public struct WebAssetCatalog: Sendable {
    /// By URL path ("/index.html", "/js/api.js"); "/" is the same file as "/index.html".
    public let assets: [String: WebAsset]

    public init(assets: [String: WebAsset]) {
        self.assets = assets
    }

    /// The file served at `path`, or nil when the page has no such file.
    public func asset(at path: String) -> WebAsset? {
        assets[path == "/" ? "/index.html" : path]
    }

    /// The URL paths the page has, sorted.
    public var paths: [String] { assets.keys.sorted() }

    /// The catalog of the files bundled with this module.
    public static func bundled() throws(WebAppError) -> WebAssetCatalog {
        guard let root = Bundle.module.resourceURL?.appendingPathComponent("Assets", isDirectory: true) else {
            throw WebAppError(description: "the web app's resources are missing from the build")
        }
        return try load(directory: root)
    }

    /// Reads every file with a known type under `directory`; other files are left out.
    static func load(directory: URL) throws(WebAppError) -> WebAssetCatalog {
        guard let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
        else {
            throw WebAppError(description: "cannot list the web app's files in \(directory.path)")
        }
        var assets: [String: WebAsset] = [:]
        let rootPath = directory.standardizedFileURL.path
        for case let file as URL in files {
            guard (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                let type = contentTypes[file.pathExtension.lowercased()]
            else { continue }
            let path = String(file.standardizedFileURL.path.dropFirst(rootPath.count))
            guard let bytes = FileManager.default.contents(atPath: file.path) else {
                throw WebAppError(description: "cannot read the web app's file \(file.path)")
            }
            assets[path.hasPrefix("/") ? path : "/" + path] = WebAsset(bytes: Array(bytes), contentType: type)
        }
        guard assets["/index.html"] != nil else {
            throw WebAppError(description: "the web app has no index.html in \(directory.path)")
        }
        return WebAssetCatalog(assets: assets)
    }

    /// The types the page uses; each text type says its charset so nothing is sniffed.
    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8",
        "svg": "image/svg+xml",
        "png": "image/png",
        "ico": "image/x-icon",
    ]
}
