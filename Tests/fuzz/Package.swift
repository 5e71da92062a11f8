// swift-tools-version: 6.1
// libFuzzer targets for Parley's decoders. Not part of the main build: Tests/fuzz/run.sh builds them
// (with -sanitize=fuzzer, plus address for the sanitizer pass) in their own scratch paths and runs
// each for a set time or a set number of executions.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]
// gold cannot link libFuzzer with Swift's sanitizer runtime here; lld can.
let linker: [LinkerSetting] = [.unsafeFlags(["-use-ld=lld"])]

let package = Package(
    name: "ParleyFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Parley", path: "../..")],
    targets: [
        .target(name: "FuzzSupport", swiftSettings: strict),
        .executableTarget(
            name: "FuzzDatagram",
            dependencies: ["FuzzSupport", .product(name: "ParleyNode", package: "Parley")],
            swiftSettings: strict, linkerSettings: linker),
        .executableTarget(
            name: "FuzzMessage",
            dependencies: ["FuzzSupport", .product(name: "ParleyNode", package: "Parley")],
            swiftSettings: strict, linkerSettings: linker),
        .executableTarget(
            name: "FuzzBallot",
            dependencies: ["FuzzSupport", .product(name: "ParleyNode", package: "Parley")],
            swiftSettings: strict, linkerSettings: linker),
        .executableTarget(
            name: "FuzzRingSignature",
            dependencies: ["FuzzSupport", .product(name: "ParleyNode", package: "Parley")],
            swiftSettings: strict, linkerSettings: linker),
        .executableTarget(
            name: "FuzzBallotEnvelope",
            dependencies: ["FuzzSupport", .product(name: "ParleyNode", package: "Parley")],
            swiftSettings: strict, linkerSettings: linker),
        .executableTarget(
            name: "FuzzBallotCommitment",
            dependencies: ["FuzzSupport", .product(name: "ParleyNode", package: "Parley")],
            swiftSettings: strict, linkerSettings: linker),
        .executableTarget(
            name: "FuzzAPIRequest",
            dependencies: ["FuzzSupport", .product(name: "ParleyAPI", package: "Parley")],
            swiftSettings: strict, linkerSettings: linker),
        .executableTarget(
            name: "FuzzFileManifest",
            dependencies: ["FuzzSupport", .product(name: "ParleyNode", package: "Parley")],
            swiftSettings: strict, linkerSettings: linker),
        .executableTarget(
            name: "FuzzChunkFrames",
            dependencies: ["FuzzSupport", .product(name: "ParleyNode", package: "Parley")],
            swiftSettings: strict, linkerSettings: linker),
    ]
)
