#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// libFuzzer's entry point when the program has its own `main` (SwiftPM names an executable's entry).
// The C symbol's own name.
// swift-format-ignore: AlwaysUseLowerCamelCase
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The one body under test, set once before the driver starts.
nonisolated(unsafe) private var target: ([UInt8]) -> Void = { _ in }

public enum Fuzzer {
    /// `PROGRAM --write-seeds DIR` writes `seeds` as files in DIR (a starting corpus) and exits;
    /// any other arguments go to libFuzzer, which calls `body` with each input until told to stop.
    public static func main(seeds: () throws -> [[UInt8]], body: @escaping ([UInt8]) -> Void) -> Never {
        let arguments = CommandLine.arguments
        if arguments.count == 3, arguments[1] == "--write-seeds" {
            do {
                for (index, seed) in try seeds().enumerated() { save(seed, to: "\(arguments[2])/seed-\(index)") }
                exit(0)
            } catch {
                printError("cannot make seeds: \(error)")
                exit(1)
            }
        }
        target = body
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(
            LLVMFuzzerRunDriver(&argc, &argv) { data, count in
                target(count == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: count)))
                return 0
            })
    }

    /// Stops the run as a crash, so libFuzzer saves the input: for broken invariants, not just traps.
    public static func fail(_ message: String) -> Never {
        printError("invariant broken: \(message)")
        abort()
    }

    private static func printError(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    private static func save(_ bytes: [UInt8], to path: String) {
        guard let file = fopen(path, "wb") else { return }
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
    }
}
