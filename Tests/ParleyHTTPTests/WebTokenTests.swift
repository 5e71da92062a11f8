import Foundation
import ParleyHTTP
import Testing

struct WebTokenTests {
    func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "parley-web-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func theTokenIsMadeOnceWithMode0600AndReused() throws {
        let data = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let token = try WebToken.loadOrCreate(dataDirectory: data)
        #expect(token.hex.count == 64)
        #expect(token.hex.allSatisfy { "0123456789abcdef".contains($0) })
        let mode =
            try FileManager.default.attributesOfItem(atPath: WebToken.path(dataDirectory: data))[.posixPermissions]
            as? Int
        #expect(mode == 0o600)
        #expect(try WebToken.loadOrCreate(dataDirectory: data).hex == token.hex)
        #expect(try WebToken.load(dataDirectory: data).matches(token.hex))
        // Two tokens are never the same, and neither is ever printed by its description
        #expect(WebToken.generate().hex != WebToken.generate().hex)
        #expect(!"\(token)".contains(token.hex))
    }

    @Test func aTokenFileOthersMayReadIsRefused() throws {
        let data = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let token = try WebToken.loadOrCreate(dataDirectory: data)
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o644], ofItemAtPath: WebToken.path(dataDirectory: data))
        #expect(throws: WebError.self) { try WebToken.load(dataDirectory: data) }
        _ = token
    }

    @Test func matchingNeedsTheWholeToken() {
        let token = WebToken.generate()
        #expect(token.matches(token.hex))
        #expect(!token.matches(String(token.hex.dropLast())))
        #expect(!token.matches(token.hex + "0"))
        #expect(!token.matches(token.hex.uppercased()))
        #expect(!token.matches(""))
    }
}

struct WebAddressTests {
    @Test func parsesHostsAndPorts() throws {
        #expect(try WebAddress(parsing: "127.0.0.1:8080") == WebAddress(host: "127.0.0.1", port: 8080))
        #expect(try WebAddress(parsing: "[::1]:0") == WebAddress(host: "::1", port: 0))
        #expect(try WebAddress(parsing: "[::1]:9").description == "[::1]:9")
        #expect(try WebAddress(parsing: "LocalHost:1").host == "localhost")
        for bad in ["127.0.0.1", "127.0.0.1:99999", ":80", "0.0.0.0:80", "[::]:80", "a b:1", "host:port"] {
            #expect(throws: WebError.self, "\(bad)") { try WebAddress(parsing: bad) }
        }
    }

    @Test func acceptsTheServedHostAndLocalhostOnLoopbackOnly() throws {
        let loopback = WebAddress(host: "127.0.0.1", port: 8080)
        #expect(loopback.isLoopback)
        #expect(loopback.accepts(authority: "127.0.0.1:8080"))
        #expect(loopback.accepts(authority: "LOCALHOST:8080"))
        #expect(!loopback.accepts(authority: "127.0.0.1:8081"))
        #expect(!loopback.accepts(authority: "evil.example:8080"))
        #expect(!loopback.accepts(authority: nil))
        #expect(loopback.accepts(origin: nil))
        #expect(loopback.accepts(origin: "http://localhost:8080"))
        #expect(!loopback.accepts(origin: "http://evil.example:8080"))
        #expect(!loopback.accepts(origin: "null"))

        let lan = WebAddress(host: "192.168.1.5", port: 8080)
        #expect(!lan.isLoopback)
        #expect(lan.accepts(authority: "192.168.1.5:8080"))
        #expect(!lan.accepts(authority: "localhost:8080"))
    }
}
