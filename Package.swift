// swift-tools-version: 6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    // A module's imports stay its own unless a file says `public import`.
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Parley",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "parley", targets: ["ParleyCLI"]),
        .executable(name: "parley-bench", targets: ["ParleyBench"]),
        .library(name: "ParleyNode", targets: ["ParleyNode"]),
        .library(name: "ParleyAPI", targets: ["ParleyAPI"]),
        // Embedders bind a real UDP socket with it (or pass their own DatagramTransport).
        .library(name: "ParleyTransport", targets: ["ParleyTransport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.0"),
        // The web app's TLS beyond loopback: the server side, and its self-signed certificate.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.0"),
    ],
    targets: [
        // libsodium, through pkg-config: the C library under every key, signature and cipher (ParleyCrypto alone imports it).
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        // The one SQLite setting GRDB cannot make: a variadic C call.
        .systemLibrary(name: "CSQLiteConfig", providers: [.apt(["libsqlite3-dev"])]),
        // Typed keys, hashes, signatures, ciphers and ring signatures over libsodium; secrets wiped on release; no I/O but key files.
        .target(name: "ParleyCrypto", dependencies: ["CSodium"], swiftSettings: strict),
        // The model, the wire codecs, and the protocol, chain and poll rules as plain values: no I/O, time passed in.
        .target(
            name: "ParleyCore",
            dependencies: [
                "ParleyCrypto",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: strict
        ),
        // `MessageStore`: the node's SQLite file, each write one transaction that keeps its invariants; no networking.
        .target(
            name: "ParleyStore",
            dependencies: [
                "ParleyCore", "ParleyCrypto", .product(name: "GRDB", package: "GRDB.swift"),
                // The SQLite that GRDB links, for binding the insert path's arguments (`DirectBindings`).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "CSQLiteConfig",
            ],
            swiftSettings: strict
        ),
        // UDP for the node: one socket, batched reads and writes, the multicast listener; no protocol logic.
        .target(
            name: "ParleyTransport",
            dependencies: [
                "ParleyCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // `Node`: the protocol engine, store, transport and clock wired together, and the queries front ends read; no sockets of its own.
        .target(
            name: "ParleyNode",
            dependencies: [
                "ParleyCore", "ParleyCrypto", "ParleyStore", "ParleyMedia",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The one request/view vocabulary every front end speaks, and its dispatcher: transport-free.
        .target(
            name: "ParleyAPI",
            dependencies: ["ParleyNode", "ParleyCore", "ParleyCrypto", "ParleyStore"],
            swiftSettings: strict
        ),
        // The Unix-socket front end: a newline-framed socket server over the API's dispatcher, and its client.
        .target(
            name: "ParleyControlSocket",
            dependencies: [
                "ParleyAPI",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The web page (HTML, CSS, JavaScript modules) as resources, and the accessor that serves them.
        .target(name: "ParleyWebApp", resources: [.copy("Assets")], swiftSettings: strict),
        // The HTTP front end: Hummingbird routes and one WebSocket over the API's dispatcher.
        .target(
            name: "ParleyHTTP",
            dependencies: [
                "ParleyAPI", "ParleyWebApp", "ParleyCrypto",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                // Only to turn a refused WebSocket handshake into a plain request (RefusedUpgradeFilter).
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                // HTTPS: the TLS server channel, and the self-signed certificate (X509, a P-256 key, its
                // SHA-256 fingerprint, the PEM and IP-address types X509 speaks in).
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                // Uploads streamed to a staging file made 0600 (Hummingbird's own file system, no new package).
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The `parley` executable: runs a node (`parley node`) and drives it over its control socket, line by line or full screen.
        .executableTarget(
            name: "ParleyCLI",
            dependencies: [
                "ParleyNode", "ParleyAPI", "ParleyControlSocket", "ParleyHTTP", "ParleyTerminal",
                "ParleyCore", "ParleyCrypto", "ParleyStore", "ParleyTransport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // `parley-bench`: throughput, latency, tally, catch-up, file and web figures against the limits of the same run, and toxcore measured beside them (Toxcore/, docs/bench).
        .executableTarget(
            name: "ParleyBench",
            dependencies: [
                "ParleyNode", "ParleyAPI", "ParleyControlSocket", "ParleyStore", "ParleyTransport", "ParleyCrypto", "ParleyCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                // Only for the raw SQL baselines the benchmark compares the store against.
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            // The toxcore harness is C the benchmark compiles when it runs, only where libtoxcore-dev is.
            exclude: ["Toxcore/tox-harness.c"],
            swiftSettings: strict
        ),
        // The full screen as values: state, layout, styled cells, ANSI output of what changed, key decoding; no I/O.
        .target(name: "ParleyTerminal", swiftSettings: strict),
        // What the tests share: a manual clock, an in-memory lossy network, and the pump that steps nodes until it is quiet.
        .target(
            name: "ParleyTestKit",
            dependencies: ["ParleyCore", "ParleyCrypto"],
            swiftSettings: strict
        ),
        // Keys, signatures, sealing, key files and ring signatures.
        .testTarget(name: "ParleyCryptoTests", dependencies: ["ParleyCrypto", "ParleyTestKit"], swiftSettings: strict),
        // Codecs, protocol state machines, chains and poll rules, as values: no network, no sleeping.
        .testTarget(name: "ParleyCoreTests", dependencies: ["ParleyCore", "ParleyCrypto", "ParleyTestKit"], swiftSettings: strict),
        // The store on real SQLite files: inserts and their invariants, queries, migrations, deliveries.
        .testTarget(
            name: "ParleyStoreTests",
            dependencies: [
                "ParleyStore", "ParleyCore", "ParleyCrypto", "ParleyTestKit", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strict),
        // Nodes in one process over the in-memory network: delivery, sync, polls, secret ballots, forks, hostile peers.
        .testTarget(
            name: "ParleyNodeTests", dependencies: ["ParleyNode", "ParleyCore", "ParleyCrypto", "ParleyStore", "ParleyTestKit"],
            swiftSettings: strict),
        // The dispatcher over real nodes: request decoding, resolution, views, failure kinds.
        .testTarget(
            name: "ParleyAPITests",
            dependencies: ["ParleyAPI", "ParleyNode", "ParleyCore", "ParleyCrypto", "ParleyStore", "ParleyTestKit"],
            swiftSettings: strict),
        // The HTTP front end: routes, the WebSocket, logins and sessions, guards, TLS, the OpenAPI document.
        .testTarget(
            name: "ParleyHTTPTests",
            dependencies: [
                "ParleyHTTP", "ParleyWebApp", "ParleyAPI", "ParleyNode", "ParleyCore", "ParleyCrypto", "ParleyStore", "ParleyTestKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                // A WebSocket client that sends the Origin a browser sends (the test client's is ws://host).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                // Reads the web app's certificate back on its own, to check what WebCertificate wrote.
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strict),
        // The control socket: its line server and client, and streams that end when the client hangs up.
        .testTarget(
            name: "ParleyControlSocketTests",
            dependencies: ["ParleyControlSocket", "ParleyAPI", "ParleyNode", "ParleyStore", "ParleyCrypto", "ParleyTestKit"],
            swiftSettings: strict),
        // UDP sockets, batching and multicast discovery.
        .testTarget(name: "ParleyTransportTests", dependencies: ["ParleyTransport", "ParleyCore"], swiftSettings: strict),
        // The full screen's layout, entries, ANSI output, key decoding and input line.
        .testTarget(name: "ParleyTerminalTests", dependencies: ["ParleyTerminal"], swiftSettings: strict),
        // The `parley` binary as processes: commands, samples, the full screen in tmux, the LAN and NAT test beds.
        .testTarget(
            name: "ParleyCLITests", dependencies: ["ParleyCore", "ParleyCrypto", "ParleyStore", "ParleyNode", "ParleyTransport"],
            swiftSettings: strict),
        // libturbojpeg, through pkg-config: thumbnails' JPEG decoding (scaled down by the library) and encoding.
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        // libpng, through pkg-config: thumbnails' PNG decoding (its simplified API).
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        // Files and pictures as bytes: type sniffing by content, metadata stripping, picture sizes, thumbnails; no I/O.
        .target(name: "ParleyMedia", dependencies: ["CTurboJPEG", "CPNG"], swiftSettings: strict),
        // Sniffing, cleaning, sizing and thumbnailing on real pictures, and on cut and garbled ones.
        .testTarget(name: "ParleyMediaTests", dependencies: ["ParleyMedia"], swiftSettings: strict),
    ]
)
