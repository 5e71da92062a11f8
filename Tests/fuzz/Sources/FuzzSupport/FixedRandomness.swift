/// libsodium's random source, for harnesses whose seeds must be the same bytes in every process:
/// the corpus written by `--write-seeds` and each fuzzing job must agree on which signatures exist.
/// Signing draws its nonces from libsodium (the fixed-draw signing functions are package-internal),
/// so the harness replaces libsodium's generator with a fixed stream (SplitMix64) before any signing.
/// Never for anything but fuzz seeds.
// The C symbol's own name.
// swift-format-ignore: AlwaysUseLowerCamelCase
@_silgen_name("randombytes_set_implementation")
private func randombytes_set_implementation(_ implementation: UnsafeRawPointer) -> CInt

nonisolated(unsafe) private var state: UInt64 = 0

private func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
}

private let name: @convention(c) () -> UnsafePointer<CChar>? = { fixedName }
private let random: @convention(c) () -> UInt32 = { UInt32(truncatingIfNeeded: next() >> 32) }
private let stir: @convention(c) () -> Void = {}
private let buf: @convention(c) (UnsafeMutableRawPointer?, Int) -> Void = { pointer, count in
    guard let pointer else { return }
    for index in 0..<count {
        pointer.storeBytes(of: UInt8(truncatingIfNeeded: next()), toByteOffset: index, as: UInt8.self)
    }
}
private let close: @convention(c) () -> CInt = { 0 }
nonisolated(unsafe) private let fixedName: UnsafePointer<CChar> = {
    let text = Array("parley-fuzz-fixed".utf8CString)
    let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: text.count)
    pointer.initialize(from: text, count: text.count)
    return UnsafePointer(pointer)
}()

extension Fuzzer {
    /// Replaces libsodium's generator with a fixed stream from `seed`. Call it first thing, before any
    /// key, signature or sealed box is made. The table stays allocated for the life of the process.
    public static func useFixedRandomness(seed: UInt64) {
        state = seed
        // struct randombytes_implementation: name, random, stir, uniform (NULL: libsodium samples
        // from random), buf, close; six function pointers.
        let table = UnsafeMutablePointer<UnsafeRawPointer?>.allocate(capacity: 6)
        table.initialize(repeating: nil, count: 6)
        table[0] = unsafeBitCast(name, to: UnsafeRawPointer.self)
        table[1] = unsafeBitCast(random, to: UnsafeRawPointer.self)
        table[2] = unsafeBitCast(stir, to: UnsafeRawPointer.self)
        table[4] = unsafeBitCast(buf, to: UnsafeRawPointer.self)
        table[5] = unsafeBitCast(close, to: UnsafeRawPointer.self)
        _ = randombytes_set_implementation(UnsafeRawPointer(table))
    }
}
