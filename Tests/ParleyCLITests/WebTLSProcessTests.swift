import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import Testing

/// The web app over TLS through the real binary: `--web-tls` on loopback, a LAN address in a network
/// namespace (TLS without being asked), the fingerprint the node and `parley web` print against the
/// one the server really presents (read by `openssl s_client`), and a taken port.
@Suite(.serialized, .processSuiteLimit)
struct WebTLSProcessTests {
    @Test func aNodeWithWebTLSServesHTTPSWithTheCertificateWhoseFingerprintItPrints() async throws {
        // Given alice's node serving the web app on loopback with --web-tls
        let parley = try ParleyBinary()
        _ = try parley.keygen("alice")
        let node = try WebNode.start(
            parley, "alice", listen: "127.0.0.1:0", options: ["--web", "127.0.0.1:0", "--web-tls"])
        defer { node.stop() }

        // Then it prints an https URL and a fingerprint, and that is the certificate the server presents
        let origin = try #require(node.printedOrigin)
        #expect(origin.hasPrefix("https://127.0.0.1:"))
        let port = try #require(Int(origin.split(separator: ":").last ?? ""))
        let printed = try #require(node.printedFingerprint)
        #expect(try WebTLSTools.servedFingerprint(host: "127.0.0.1", port: port) == printed)
        #expect(node.output.contains("made a self-signed certificate"))

        // and `parley web` gives the https login URL on stdout and the same fingerprint on stderr
        let web = try parley.runBounded(["web", "--data", parley.data("alice")])
        #expect(web.status == 0)
        #expect(web.stdout.hasPrefix("\(origin)/login?"))
        #expect(web.stderr.contains(printed))

        // and the page answers over HTTPS, while plain HTTP on that port gets no HTTP answer at all
        #expect(try WebTLSTools.curl(["--insecure", "\(origin)/"]).httpCode == "200")
        let plain = try WebTLSTools.curl(["http://127.0.0.1:\(port)/"])
        #expect(plain.status != 0 && plain.httpCode == "000")
    }

    @Test func aTakenWebPortEndsTheNodeWithOneLineAndNoListeningLine() throws {
        // Given a port something else listens on
        let taken = try TakenPort()
        defer { taken.close() }
        let parley = try ParleyBinary()
        _ = try parley.keygen("alice")

        // When a node is started with its web app there
        let result = try parley.runBounded([
            "node", "--key", "\(parley.workspace)/keys/alice.key", "--data", parley.data("alice"), "--listen",
            "127.0.0.1:0",
            "--web", "127.0.0.1:\(taken.port)",
        ])

        // Then it exits with one line that says why, and never said it listened
        #expect(result.status != nil && result.status != 0)
        #expect(result.stdout.isEmpty, "\(result.stdout)")
        let lines = result.stderr.split(separator: "\n")
        #expect(
            lines == [
                "Error: cannot serve the web app on 127.0.0.1:\(taken.port): the port is in use (stop what listens there, or choose another port; port 0 takes a free one)"
            ])
        #expect(!FileManager.default.fileExists(atPath: parley.data("alice") + "/web-address"))
    }

    @Test func theTLSFlagsWithoutAWebAddressOrTogetherAreRefused() throws {
        let parley = try ParleyBinary()
        _ = try parley.keygen("alice")
        let node = [
            "node", "--key", "\(parley.workspace)/keys/alice.key", "--data", parley.data("alice"), "--listen",
            "127.0.0.1:0",
        ]
        let alone = try parley.runBounded(node + ["--web-tls"])
        #expect(alone.status != nil && alone.status != 0)
        #expect(alone.stderr.contains("--web-tls is about the web app: give --web HOST:PORT too"))
        let both = try parley.runBounded(node + ["--web", "127.0.0.1:0", "--web-tls", "--insecure-http"])
        #expect(both.status != nil && both.status != 0)
        #expect(both.stdout.isEmpty)
        #expect(both.stderr == "Error: --web-tls and --insecure-http contradict each other: give one of them\n")
    }

    @Test(.enabled(if: NetworkNamespaces.canCreate, "needs root and iproute2 to make network namespaces"))
    func aLANAddressIsServedOverTLSUnlessInsecureHTTPIsGiven() throws {
        // Given two hosts on a LAN of their own, and alice's node serving the web app on her LAN address
        let parley = try ParleyBinary()
        let namespaces = try NetworkNamespaces.makePair()
        defer { namespaces.remove() }
        let (host, browser) = (namespaces.members[0], namespaces.members[1])
        _ = try parley.keygen("alice")
        var node = try WebNode.start(
            parley, "alice", listen: "\(host.address):7001", options: ["--web", "\(host.address):8443"],
            launcher: namespaces.launcher(for: host))

        // Then it is HTTPS without being asked, and the other host gets the page with the printed certificate
        #expect(node.printedOrigin == "https://\(host.address):8443")
        let printed = try #require(node.printedFingerprint)
        #expect(
            try WebTLSTools.servedFingerprint(
                host: host.address, port: 8443, launcher: namespaces.launcher(for: browser)) == printed)
        #expect(
            try WebTLSTools.curl(
                ["--insecure", "https://\(host.address):8443/"], launcher: namespaces.launcher(for: browser)
            ).httpCode == "200")
        #expect(!node.errors.contains("warning"))
        node.stop()

        // When it is started again with --insecure-http
        node = try WebNode.start(
            parley, "alice", listen: "\(host.address):7001",
            options: ["--web", "\(host.address):8443", "--insecure-http"],
            launcher: namespaces.launcher(for: host))
        defer { node.stop() }

        // Then it is plain HTTP, and it says plainly what crosses the network readable
        #expect(node.printedOrigin == "http://\(host.address):8443")
        #expect(node.printedFingerprint == nil)
        #expect(
            node.errors.contains(
                "login links, session cookies and every message the page shows cross the network readable"))
        #expect(
            try WebTLSTools.curl(["http://\(host.address):8443/"], launcher: namespaces.launcher(for: browser)).httpCode
                == "200")
    }
}

/// `parley node` with its standard output and error kept, once it serves the web app.
struct WebNode {
    let process: Process
    let outputPath: String, errorPath: String

    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    var errors: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// `https://host:port` from "web app on …".
    var printedOrigin: String? {
        output.split(separator: "\n").first { $0.hasPrefix("web app on ") }?
            .dropFirst("web app on ".count).split(separator: " ").first.map(String.init)
    }

    /// The colon hex after "SHA-256 " on the certificate line.
    var printedFingerprint: String? {
        output.split(separator: "\n").first { $0.hasPrefix("web app certificate SHA-256 ") }?
            .dropFirst("web app certificate SHA-256 ".count).split(separator: " ").first.map(String.init)
    }

    /// Starts the node and waits (at most 15 s) for DATA/web-address; throws with its stderr if it exits first.
    static func start(
        _ parley: ParleyBinary, _ name: String, listen: String, options: [String], launcher: [String] = []
    ) throws -> WebNode {
        let outputPath = "\(parley.workspace)/\(name).out", errorPath = "\(parley.workspace)/\(name).err"
        for path in [outputPath, errorPath] { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        let command =
            launcher + [
                ParleyBinary.path, "node", "--key", "\(parley.workspace)/keys/\(name).key", "--data", parley.data(name),
                "--listen", listen, "--log-level", "warning",
            ] + options
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardOutput = FileHandle(forWritingAtPath: outputPath)
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        try process.run()
        let node = WebNode(process: process, outputPath: outputPath, errorPath: errorPath)
        let deadline = Date().addingTimeInterval(15)
        // The address lines come right after the web-address file; wait for the last one printed.
        while node.output.split(separator: "\n").count < 2
            || !FileManager.default.fileExists(atPath: parley.data(name) + "/web-address")
        {
            guard process.isRunning, Date() < deadline else {
                process.terminateAndWait()
                throw CommandFailed(
                    arguments: Array(command.dropFirst(launcher.count + 1)), status: process.terminationStatus,
                    stderr: node.errors)
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return node
    }

    func stop() { process.terminateAndWait() }
}

/// openssl and curl, as a browser's side of TLS that shares nothing with the server's code.
enum WebTLSTools {
    /// The SHA-256 fingerprint (colon hex) of the certificate `host:port` presents.
    static func servedFingerprint(host: String, port: Int, launcher: [String] = []) throws -> String {
        let prefix = launcher.joined(separator: " ")
        let output = try shell(
            "\(prefix) openssl s_client -connect \(host):\(port) </dev/null 2>/dev/null | openssl x509 -noout -fingerprint -sha256"
        )
        // "sha256 Fingerprint=AB:CD:…"
        return String(output.split(separator: "=").last ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// curl's exit status and the HTTP status code it got ("000" for none).
    static func curl(_ arguments: [String], launcher: [String] = []) throws -> (status: Int32, httpCode: String) {
        let process = Process()
        let command =
            launcher + [
                "/usr/bin/curl", "--silent", "--max-time", "10", "--output", "/dev/null", "--write-out", "%{http_code}",
            ] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let code = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, code)
    }

    private static func shell(_ command: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return output
    }
}

/// A loopback TCP port this test listens on, so a node cannot.
struct TakenPort {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard descriptor >= 0, bound == 0, listen(descriptor, 1) == 0, named == 0 else {
            throw CommandFailed(
                arguments: ["listen 127.0.0.1:0"], status: errno, stderr: String(cString: strerror(errno)))
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(descriptor) }
}
