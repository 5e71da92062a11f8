import Crypto
import Foundation
import ParleyHTTP
import SwiftASN1
import Testing
import X509

/// The web app's certificate in the data directory, and when the app is served over TLS.
struct WebCertificateTests {
    func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "parley-tls-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func storedCertificate(_ data: String) throws -> (Certificate, der: [UInt8]) {
        let pem = try String(contentsOfFile: WebCertificate.certificatePath(dataDirectory: data), encoding: .utf8)
        return (try Certificate(pemEncoded: pem), try PEMDocument(pemString: pem).derBytes)
    }

    func names(_ certificate: Certificate) throws -> [GeneralName] {
        try certificate.extensions.subjectAlternativeNames.map(Array.init) ?? []
    }

    @Test func theCertificateIsMadeOnceWithItsKeyMode0600AndReused() throws {
        let data = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let made = try WebCertificate.loadOrCreate(dataDirectory: data, host: "192.168.1.5")
        #expect(made.provenance == .created)
        let mode =
            try FileManager.default.attributesOfItem(atPath: WebCertificate.keyPath(dataDirectory: data))[
                .posixPermissions] as? Int
        #expect(mode == 0o600)

        let again = try WebCertificate.loadOrCreate(dataDirectory: data, host: "192.168.1.5")
        #expect(again.provenance == .reused)
        #expect(again.fingerprint == made.fingerprint)
    }

    @Test func theFingerprintIsTheSHA256OfTheCertificateAsBrowsersShowIt() throws {
        let data = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let made = try WebCertificate.loadOrCreate(dataDirectory: data, host: "192.168.1.5")
        let (_, der) = try storedCertificate(data)
        let expected = SHA256.hash(data: der).map { String(format: "%02X", $0) }.joined(separator: ":")
        #expect(made.fingerprint == expected)
        #expect(made.fingerprint.count == 32 * 3 - 1)
    }

    @Test func theCertificateNamesTheServedHostAndIsForAServerOnly() throws {
        let data = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        _ = try WebCertificate.loadOrCreate(dataDirectory: data, host: "192.168.1.5")
        let (certificate, _) = try storedCertificate(data)
        #expect(try names(certificate) == [.ipAddress(ASN1OctetString(contentBytes: [192, 168, 1, 5]))])
        #expect(try certificate.extensions.basicConstraints == .notCertificateAuthority)
        #expect(try certificate.extensions.extendedKeyUsage.map(Array.init) == [.serverAuth])
        #expect(certificate.issuer == certificate.subject)
        // Within the 398 days browsers take
        #expect(certificate.notValidAfter.timeIntervalSince(certificate.notValidBefore) <= 398 * 86_400)

        // A host name is a DNS name; loopback also names every name a browser may be given for it
        _ = try WebCertificate.loadOrCreate(dataDirectory: data, host: "parley.lan")
        #expect(try names(try storedCertificate(data).0) == [.dnsName("parley.lan")])
        _ = try WebCertificate.loadOrCreate(dataDirectory: data, host: "127.0.0.1")
        let loopback = Set(try names(try storedCertificate(data).0))
        #expect(loopback.contains(.dnsName("localhost")))
        #expect(loopback.contains(.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))))
        #expect(
            loopback.contains(
                .ipAddress(ASN1OctetString(contentBytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]))))
    }

    @Test func anotherHostGetsANewCertificateAndTheReasonSaysWhy() throws {
        let data = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try WebCertificate.loadOrCreate(dataDirectory: data, host: "10.0.0.1")
        let moved = try WebCertificate.loadOrCreate(dataDirectory: data, host: "10.0.0.2")
        #expect(moved.provenance == .replaced("it was made for 10.0.0.1, not 10.0.0.2"))
        #expect(moved.fingerprint != first.fingerprint)
        #expect(try names(try storedCertificate(data).0) == [.ipAddress(ASN1OctetString(contentBytes: [10, 0, 0, 2]))])
        #expect(try WebCertificate.loadOrCreate(dataDirectory: data, host: "10.0.0.2").provenance == .reused)
    }

    @Test func anExpiredCertificateIsReplaced() throws {
        let data = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let old = try WebCertificate.loadOrCreate(
            dataDirectory: data, host: "10.0.0.1", now: Date().addingTimeInterval(-400 * 86_400))
        let renewed = try WebCertificate.loadOrCreate(dataDirectory: data, host: "10.0.0.1")
        guard case let .replaced(reason) = renewed.provenance else {
            Issue.record("kept an expired certificate: \(renewed.provenance)")
            return
        }
        #expect(reason.hasPrefix("it expired "))
        #expect(renewed.fingerprint != old.fingerprint)
        #expect(try storedCertificate(data).0.notValidAfter > Date())
    }

    @Test func aKeyFileOthersMayReadIsRefused() throws {
        let data = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        _ = try WebCertificate.loadOrCreate(dataDirectory: data, host: "10.0.0.1")
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o644], ofItemAtPath: WebCertificate.keyPath(dataDirectory: data))
        let error = #expect(throws: WebError.self) {
            try WebCertificate.loadOrCreate(dataDirectory: data, host: "10.0.0.1")
        }
        #expect(error?.description.contains("chmod 600") == true)
    }

    @Test func aKeyThatIsNotTheCertificatesIsRefused() throws {
        let data = try temporaryDirectory(), other = try temporaryDirectory()
        defer { [data, other].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        _ = try WebCertificate.loadOrCreate(dataDirectory: data, host: "10.0.0.1")
        _ = try WebCertificate.loadOrCreate(dataDirectory: other, host: "10.0.0.1")
        let keyPath = WebCertificate.keyPath(dataDirectory: data)
        try FileManager.default.removeItem(atPath: keyPath)
        try FileManager.default.copyItem(atPath: WebCertificate.keyPath(dataDirectory: other), toPath: keyPath)
        #expect(throws: WebError.self) { try WebCertificate.loadOrCreate(dataDirectory: data, host: "10.0.0.1") }
    }
}

struct WebSchemeTests {
    @Test func loopbackIsPlainUnlessTLSIsAskedForAndAnyOtherAddressIsTLSUnlessRefused() throws {
        let loopback = WebAddress(host: "127.0.0.1", port: 8080), lan = WebAddress(host: "192.168.1.5", port: 8080)
        #expect(try WebScheme.serving(loopback, forceTLS: false, allowPlainHTTP: false) == .http)
        #expect(try WebScheme.serving(loopback, forceTLS: true, allowPlainHTTP: false) == .https)
        #expect(try WebScheme.serving(lan, forceTLS: false, allowPlainHTTP: false) == .https)
        #expect(try WebScheme.serving(lan, forceTLS: false, allowPlainHTTP: true) == .http)
        #expect(
            try WebScheme.serving(WebAddress(host: "parley.lan", port: 1), forceTLS: false, allowPlainHTTP: false)
                == .https)
        #expect(throws: WebError.self) { try WebScheme.serving(lan, forceTLS: true, allowPlainHTTP: true) }
    }

    @Test func anHTTPSAddressTakesOnlyHTTPSOrigins() {
        let secure = WebAddress(host: "192.168.1.5", port: 8443, scheme: .https)
        #expect(secure.origin == "https://192.168.1.5:8443")
        #expect(secure.accepts(origin: "https://192.168.1.5:8443"))
        #expect(!secure.accepts(origin: "http://192.168.1.5:8443"))
        let plain = WebAddress(host: "192.168.1.5", port: 8443)
        #expect(plain.accepts(origin: "http://192.168.1.5:8443"))
        #expect(!plain.accepts(origin: "https://192.168.1.5:8443"))
    }

    @Test func onTheSchemesOwnPortTheBareHostIsAccepted() {
        // Browsers leave :443 out of https and :80 out of http Host and Origin headers.
        let secure = WebAddress(host: "192.168.1.5", port: 443, scheme: .https)
        #expect(secure.accepts(authority: "192.168.1.5"))
        #expect(secure.accepts(origin: "https://192.168.1.5"))
        #expect(!WebAddress(host: "192.168.1.5", port: 443).accepts(authority: "192.168.1.5"))
        #expect(WebAddress(host: "::1", port: 80).accepts(authority: "[::1]"))
        #expect(!WebAddress(host: "192.168.1.5", port: 8443, scheme: .https).accepts(authority: "192.168.1.5"))
    }

    @Test func theAddressFileCarriesTheSchemeAndFingerprint() throws {
        let data = NSTemporaryDirectory() + "parley-tls-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: data) }
        try WebAddressFile.write(
            WebAddress(host: "127.0.0.1", port: 8443, scheme: .https), fingerprint: "AB:CD", dataDirectory: data)
        #expect(try WebAddressFile.read(dataDirectory: data)?.origin == "https://127.0.0.1:8443")
        #expect(WebAddressFile.fingerprint(dataDirectory: data) == "AB:CD")
        // Still host:port alone, as scripts read it
        #expect(
            try String(contentsOfFile: WebAddressFile.path(dataDirectory: data), encoding: .utf8) == "127.0.0.1:8443\n")
        WebAddressFile.remove(dataDirectory: data)
        try WebAddressFile.write(WebAddress(host: "127.0.0.1", port: 8080), dataDirectory: data)
        #expect(try WebAddressFile.read(dataDirectory: data)?.origin == "http://127.0.0.1:8080")
        #expect(WebAddressFile.fingerprint(dataDirectory: data) == nil)
    }
}
