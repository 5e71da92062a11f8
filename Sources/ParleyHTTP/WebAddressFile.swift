import Foundation

/// `DATA/web-address`: the host:port the node serves the web app on (port 0 resolved to the real
/// port), written once the server listens and removed when it stops. `parley web` reads it to
/// build the login URL, and its absence says the node does not serve the web app.
public enum WebAddressFile {
    static let fileName = "web-address"

    public static func path(dataDirectory: String) -> String { "\(dataDirectory)/\(fileName)" }

    public static func write(_ address: WebAddress, dataDirectory: String) throws(WebError) {
        let path = path(dataDirectory: dataDirectory)
        do {
            // Written whole then renamed, so a reader never sees half an address.
            try Data("\(address)\n".utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw WebError("cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// The address being served, or nil when the node does not serve the web app now.
    public static func read(dataDirectory: String) throws(WebError) -> WebAddress? {
        guard let data = FileManager.default.contents(atPath: path(dataDirectory: dataDirectory)) else { return nil }
        return try WebAddress(parsing: String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    public static func remove(dataDirectory: String) {
        try? FileManager.default.removeItem(atPath: path(dataDirectory: dataDirectory))
    }
}
