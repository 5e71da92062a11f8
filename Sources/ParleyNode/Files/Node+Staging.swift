import ParleyCrypto

extension Node {
    /// A fresh path in this node's file folder for a front end to write an upload to before `sendFile`
    /// (`<files>/.upload-<16 hex>`): on the disk of the held files, and never a name a held file takes
    /// (those are manifest ids, without a dot). Nothing is created: the caller makes the file, and
    /// removes it once `sendFile` has copied it.
    public func stagingPath() throws -> String {
        try filesDirectory() + "/.upload-" + Hex.encode(secureRandomBytes(count: 8))
    }
}
