import Foundation

/// `DATA/web-address`: the host:port the node serves the web app on (port 0 resolved to the real
/// port), written once the server listens and removed when it stops. `parley web` reads it to
/// build the login URL, and its absence says the node does not serve the web app.
///
/// Served over TLS, the node writes `DATA/web-tls-fingerprint` first: the SHA-256 fingerprint of
/// the certificate it serves. Its presence makes the address `https`, and `parley web` prints it.
public enum WebAddressFile {
    static let fileName = "web-address"
    static let fingerprintFileName = "web-tls-fingerprint"

    public static func path(dataDirectory: String) -> String { "\(dataDirectory)/\(fileName)" }
    static func fingerprintPath(dataDirectory: String) -> String { "\(dataDirectory)/\(fingerprintFileName)" }

    /// `fingerprint` is the served certificate's when `address` is `https`.
    public static func write(_ address: WebAddress, fingerprint: String? = nil, dataDirectory: String) throws(WebError)
    {
        if let fingerprint { try write("\(fingerprint)\n", to: fingerprintPath(dataDirectory: dataDirectory)) }
        try write("\(address)\n", to: path(dataDirectory: dataDirectory))
    }

    /// The address being served (its scheme included), or nil when the node does not serve the web app now.
    public static func read(dataDirectory: String) throws(WebError) -> WebAddress? {
        guard let text = contents(path(dataDirectory: dataDirectory)) else { return nil }
        let address = try WebAddress(parsing: text)
        guard fingerprint(dataDirectory: dataDirectory) != nil else { return address }
        return WebAddress(host: address.host, port: address.port, scheme: .https)
    }

    /// The fingerprint of the certificate being served, nil when the app is served as plain HTTP or not at all.
    public static func fingerprint(dataDirectory: String) -> String? {
        contents(fingerprintPath(dataDirectory: dataDirectory))
    }

    public static func remove(dataDirectory: String) {
        try? FileManager.default.removeItem(atPath: path(dataDirectory: dataDirectory))
        try? FileManager.default.removeItem(atPath: fingerprintPath(dataDirectory: dataDirectory))
    }

    private static func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map {
            String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    private static func write(_ text: String, to path: String) throws(WebError) {
        do {
            // Written whole then renamed, so a reader never sees half a line.
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw WebError("cannot write \(path): \(error.localizedDescription)")
        }
    }
}
