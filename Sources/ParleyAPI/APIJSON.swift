import ParleyNode
import Foundation

/// The one JSON dialect of the control socket and of `--json` output: compact, sorted keys, one line.
public enum APIJSON {
    public static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    public static func decode<Value: Decodable>(_ type: Value.Type, from line: String) throws -> Value {
        try JSONDecoder().decode(type, from: Data(line.utf8))
    }
}
