import Foundation

/// Words for the large store's texts, so that its search figure reads posting lists of the lengths a
/// chat has: a few words in many messages, most in few. Deterministic: the same store every run.
enum BenchWords {
    static let vocabulary: [String] = {
        let onsets = ["b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "ch", "st"]
        let vowels = ["a", "e", "i", "o", "u"]
        let codas = ["", "n", "r", "s", "l", "k", "m", "t"]
        var words: [String] = []
        for first in onsets {
            for vowel in vowels {
                for second in onsets {
                    for coda in codas { words.append(first + vowel + second + vowels[(words.count / 7) % 5] + coda) }
                }
            }
        }
        return Array(words.prefix(count))
    }()
    static let count = 8_192

    /// A word of about Zipf's frequencies: rank r is drawn with odds about 1/r.
    static func word(_ seed: inout UInt64) -> String {
        let unit = Double(next(&seed) >> 11) / Double(1 << 53)
        let rank = Int(pow(Double(count), unit)) - 1
        return vocabulary[min(max(rank, 0), count - 1)]
    }

    /// The text of the large store's message `index`: words up to about 64 bytes, as `BenchContent`.
    static func text(_ index: Int) -> [UInt8] {
        var seed = UInt64(index) &* 0x9E37_79B9_7F4A_7C15
        var text = ""
        while text.utf8.count < 56 { text += (text.isEmpty ? "" : " ") + word(&seed) }
        return Array(text.utf8)
    }

    /// SplitMix64.
    static func next(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
