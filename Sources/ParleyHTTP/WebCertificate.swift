import Crypto
public import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import SwiftASN1
import X509

/// The web app's TLS identity when it is served beyond loopback (or with `--web-tls`): a self-signed
/// P-256 certificate for the served host in `DATA/web-tls-cert.pem`, its key in `DATA/web-tls-key.pem`
/// (mode 0600). No authority vouches for it, so the user checks its SHA-256 fingerprint, which the
/// node and `parley web` print, against the one the browser shows before trusting the page.
public struct WebCertificate: Sendable {
    static let certificateFileName = "web-tls-cert.pem"
    static let keyFileName = "web-tls-key.pem"
    /// Browsers refuse a server certificate valid for more than 398 days.
    static let lifetime: TimeInterval = 397 * 86_400

    /// What `loadOrCreate` did, so the node can say so.
    public enum Provenance: Sendable, Hashable {
        case reused
        case created
        /// The kept certificate could not serve this host (another host, or expired): why.
        case replaced(String)
    }

    let certificatePEM: String
    let privateKeyPEM: String
    /// SHA-256 of the certificate's DER bytes as upper-case hex pairs joined by colons, the way
    /// browsers show it.
    public let fingerprint: String
    public let provenance: Provenance

    public static func certificatePath(dataDirectory: String) -> String { "\(dataDirectory)/\(certificateFileName)" }
    public static func keyPath(dataDirectory: String) -> String { "\(dataDirectory)/\(keyFileName)" }

    /// The data directory's certificate for `host`: the kept one while it names the host and is
    /// valid, else a new one (and a new key) that replaces it.
    public static func loadOrCreate(dataDirectory: String, host: String, now: Date = Date()) throws(WebError)
        -> WebCertificate
    {
        let certificatePath = certificatePath(dataDirectory: dataDirectory),
            keyPath = keyPath(dataDirectory: dataDirectory)
        let names = subjectAlternativeNames(for: host)
        guard FileManager.default.fileExists(atPath: certificatePath), FileManager.default.fileExists(atPath: keyPath)
        else {
            return try create(names: names, dataDirectory: dataDirectory, now: now, provenance: .created)
        }
        let kept = try load(certificatePath: certificatePath, keyPath: keyPath)
        let held = Set(((try? kept.certificate.extensions.subjectAlternativeNames) ?? nil).map(Array.init) ?? [])
        if !held.isSuperset(of: names) {
            let shown = held.map(Self.display).sorted().joined(separator: ", ")
            return try create(
                names: names, dataDirectory: dataDirectory, now: now,
                provenance: .replaced("it was made for \(shown.isEmpty ? "no host" : shown), not \(host)"))
        }
        if now >= kept.certificate.notValidAfter || now < kept.certificate.notValidBefore {
            let until = ISO8601DateFormatter().string(from: kept.certificate.notValidAfter)
            return try create(
                names: names, dataDirectory: dataDirectory, now: now,
                provenance: .replaced(
                    now < kept.certificate.notValidBefore ? "it is not valid yet" : "it expired \(until)"))
        }
        return WebCertificate(
            certificatePEM: kept.certificatePEM, privateKeyPEM: kept.keyPEM,
            fingerprint: try fingerprint(pem: kept.certificatePEM, path: certificatePath), provenance: .reused)
    }

    /// The names a browser may be given for `host`: the host itself, and on loopback every name
    /// `WebAddress` accepts there (localhost, 127.0.0.1, ::1).
    static func subjectAlternativeNames(for host: String) -> Set<GeneralName> {
        var hosts: Set<String> = [host]
        if WebAddress(host: host, port: 0).isLoopback { hosts.formUnion(["localhost", "127.0.0.1", "::1"]) }
        return Set(
            hosts.map { name in
                ipAddressBytes(name).map { .ipAddress(ASN1OctetString(contentBytes: $0[...])) } ?? .dnsName(name)
            })
    }

    /// The 4 or 16 bytes of an IP address, nil for a host name.
    static func ipAddressBytes(_ host: String) -> [UInt8]? {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        if inet_pton(AF_INET6, host, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    private static func display(_ name: GeneralName) -> String {
        switch name {
        case let .dnsName(text): return text
        case let .ipAddress(bytes):
            let raw = Array(bytes.bytes)
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            let family = raw.count == 4 ? AF_INET : AF_INET6
            guard inet_ntop(family, raw, &text, socklen_t(text.count)) != nil else { return "an IP address" }
            return String(cString: text)
        default: return "\(name)"
        }
    }

    private static func create(names: Set<GeneralName>, dataDirectory: String, now: Date, provenance: Provenance)
        throws(WebError) -> WebCertificate
    {
        let certificatePath = certificatePath(dataDirectory: dataDirectory)
        let certificatePEM: String, keyPEM: String
        do {
            let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
            let name = try DistinguishedName { CommonName("Parley web app") }
            let extensions = try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names.sorted { display($0) < display($1) })
            }
            // An hour back: a browser whose clock is a little behind still takes it.
            let certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.publicKey,
                notValidBefore: now.addingTimeInterval(-3_600), notValidAfter: now.addingTimeInterval(lifetime),
                issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
                issuerPrivateKey: key)
            certificatePEM = try certificate.serializeAsPEM().pemString
            keyPEM = try key.serializeAsPEM().pemString
        } catch {
            throw WebError("cannot make the web app's TLS certificate: \(error)")
        }
        // The key first: a certificate on disk always has its key beside it.
        // Created 0600 under a temporary name, synced, then renamed: no one else can ever read it, and
        // a reader never sees half a key.
        try PrivateFile.replace(
            path: keyPath(dataDirectory: dataDirectory), contents: keyPEM + "\n", what: "web app TLS key")
        do {
            try Data((certificatePEM + "\n").utf8).write(to: URL(fileURLWithPath: certificatePath), options: .atomic)
        } catch {
            throw WebError("cannot write \(certificatePath): \(error.localizedDescription)")
        }
        return WebCertificate(
            certificatePEM: certificatePEM, privateKeyPEM: keyPEM,
            fingerprint: try fingerprint(pem: certificatePEM, path: certificatePath), provenance: provenance)
    }

    private static func load(certificatePath: String, keyPath: String) throws(WebError) -> (
        certificate: Certificate, certificatePEM: String, keyPEM: String
    ) {
        let keyPEM = try readSecret(keyPath)
        let certificatePEM: String
        do {
            certificatePEM = try String(contentsOfFile: certificatePath, encoding: .utf8)
        } catch {
            throw WebError("cannot read \(certificatePath): \(error.localizedDescription)")
        }
        let certificate: Certificate, key: Certificate.PrivateKey
        do { certificate = try Certificate(pemEncoded: certificatePEM) } catch {
            throw WebError("\(certificatePath) is not a PEM certificate; delete it and \(keyPath) for a new pair")
        }
        do { key = try Certificate.PrivateKey(pemEncoded: keyPEM) } catch {
            throw WebError("\(keyPath) is not a PEM private key; delete it and \(certificatePath) for a new pair")
        }
        guard key.publicKey == certificate.publicKey else {
            throw WebError("\(keyPath) is not the key of \(certificatePath); delete both for a new pair")
        }
        return (certificate, certificatePEM, keyPEM)
    }

    private static func fingerprint(pem: String, path: String) throws(WebError) -> String {
        let der: [UInt8]
        do { der = try PEMDocument(pemString: pem).derBytes } catch {
            throw WebError("\(path) is not a PEM certificate")
        }
        return SHA256.hash(data: der).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    /// A key file others may read is refused, as the web token and identity keys are.
    private static func readSecret(_ path: String) throws(WebError) -> String {
        let mode: Int
        do {
            mode = try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0o777
        } catch {
            throw WebError("cannot read \(path): \(error.localizedDescription)")
        }
        guard mode & 0o077 == 0 else {
            throw WebError(
                "\(path): group or others may read it (mode \(String(mode & 0o777, radix: 8))); chmod 600 it, or delete it for a new key"
            )
        }
        do { return try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw WebError("cannot read \(path): \(error.localizedDescription)")
        }
    }
}
