import Testing
@testable import ParleyMedia

/// The type comes from the bytes; the name only turns plain text into Markdown or CSV.
struct ContentSnifferTests {
    static let pngHead = PNGChunks.signature + [0, 0, 0, 13] + Array("IHDR".utf8)
    static let jpegHead: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16] + Array("JFIF".utf8)

    static let magicCases: [(head: [UInt8], mime: String)] = {
        let ascii = { (text: String) -> [UInt8] in Array(text.utf8) }
        var cases: [(head: [UInt8], mime: String)] = []
        cases.append((pngHead, "image/png"))
        cases.append((jpegHead, "image/jpeg"))
        cases.append((ascii("GIF89a") + [10, 0, 5, 0], "image/gif"))
        cases.append((ascii("GIF87a") + [10, 0, 5, 0], "image/gif"))
        cases.append((ascii("RIFF") + [0x24, 0, 0, 0] + ascii("WEBPVP8 "), "image/webp"))
        cases.append((ascii("%PDF-1.7\n%") + [0xE2, 0xE3, 0xCF, 0xD3], "application/pdf"))
        cases.append(([0x50, 0x4B, 0x03, 0x04, 0x14, 0, 0, 0], "application/zip"))
        cases.append(([0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18), "application/zip"))
        cases.append(([0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 3], "application/gzip"))
        cases.append((ascii("ID3") + [4, 0, 0, 0, 0, 0x23], "audio/mpeg"))
        // MPEG-1 layer III, 128 kbit/s, 44.1 kHz.
        cases.append(([0xFF, 0xFB, 0x90, 0x64, 0, 0], "audio/mpeg"))
        cases.append(([0, 0, 0, 0x18] + ascii("ftypmp42") + [0, 0, 0, 0] + ascii("mp42isom"), "video/mp4"))
        // HEIF is an ISO media file too, but a still picture Parley cannot show.
        cases.append(
            ([0, 0, 0, 0x18] + ascii("ftypheic") + [0, 0, 0, 0] + ascii("mif1heic"), "application/octet-stream"))
        cases.append((ascii("OggS") + [0, 2, 0, 0], "audio/ogg"))
        cases.append(([0x00, 0x01, 0x02, 0xFE], "application/octet-stream"))
        return cases
    }()

    @Test("each recognised format is named by its magic bytes, whatever the file is called", arguments: magicCases)
    func magicBytes(head: [UInt8], mime: String) {
        for name in ["file", "file.txt", "file.png", "file.html"] {
            #expect(ContentSniffer.type(of: head, name: name).mime == mime, "named \(name)")
        }
    }

    @Test("only PNG, JPEG, GIF and WebP are pictures")
    func pictures() {
        #expect(ContentSniffer.type(of: Self.pngHead, name: "a").isPicture)
        #expect(ContentSniffer.type(of: Self.jpegHead, name: "a").isPicture)
        #expect(!ContentSniffer.type(of: Array("%PDF-1.4".utf8), name: "a.png").isPicture)
        #expect(!ContentSniffer.type(of: Array("hello".utf8), name: "a.png").isPicture)
    }

    @Test("a name claiming one picture type for another's bytes gets the bytes' type")
    func mismatchedExtension() {
        #expect(ContentSniffer.type(of: Self.jpegHead, name: "holiday.png") == .jpeg)
        #expect(ContentSniffer.type(of: Self.pngHead, name: "holiday.JPG") == .png)
    }

    @Test("a name claiming a picture for text or unknown bytes is no picture")
    func fakePicture() {
        #expect(ContentSniffer.type(of: Array("not a picture at all".utf8), name: "cat.jpg") == .plainText)
        #expect(ContentSniffer.type(of: [0x13, 0x37, 0x00, 0xFF, 0xD8], name: "cat.jpg") == .octetStream)
    }

    @Test("HTML, SVG and other scriptable text is plain text, never its own type")
    func scriptableText() {
        let html = Array("<!DOCTYPE html><html><script>alert(document.cookie)</script></html>".utf8)
        let svg = Array(#"<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script/></svg>"#.utf8)
        #expect(ContentSniffer.type(of: html, name: "page.html") == .plainText)
        #expect(ContentSniffer.type(of: html, name: "page.htm") == .plainText)
        #expect(ContentSniffer.type(of: svg, name: "logo.svg") == .plainText)
        #expect(ContentSniffer.type(of: svg, name: "logo.xhtml") == .plainText)
        #expect(ContentSniffer.type(of: Array("# notes".utf8), name: "notes.md.html") == .plainText)
        // Not text either (a NUL byte): no type to run, only bytes to save.
        #expect(ContentSniffer.type(of: html + [0], name: "page.html") == .octetStream)
    }

    @Test("text named .md or .markdown is Markdown, .csv is CSV, whatever the case")
    func textRefinedByName() {
        let text = Array("# Title\n\nname,count\nbeach,3\n".utf8)
        #expect(ContentSniffer.type(of: text, name: "README.md") == .markdown)
        #expect(ContentSniffer.type(of: text, name: "notes.Markdown") == .markdown)
        #expect(ContentSniffer.type(of: text, name: "data.CSV") == .csv)
        #expect(ContentSniffer.type(of: text, name: "data.csv.") == .plainText)
        #expect(ContentSniffer.type(of: text, name: "csv") == .plainText)
        // The name refines text only: a PDF named .md stays a PDF.
        #expect(ContentSniffer.type(of: Array("%PDF-1.7".utf8), name: "paper.md") == .pdf)
    }

    @Test("text must be valid UTF-8 without NUL bytes")
    func textRules() {
        #expect(ContentSniffer.type(of: Array("naïve café — 😀".utf8), name: "a.txt") == .plainText)
        #expect(ContentSniffer.type(of: [], name: "empty.txt") == .plainText)
        // Overlong "/" and a lone continuation byte are not UTF-8; UTF-16 holds NULs.
        #expect(ContentSniffer.type(of: [0x61, 0xC0, 0xAF], name: "a.txt") == .octetStream)
        #expect(ContentSniffer.type(of: [0x61, 0x80, 0x62], name: "a.txt") == .octetStream)
        #expect(ContentSniffer.type(of: [0xFF, 0xFE, 0x68, 0x00, 0x69, 0x00], name: "a.txt") == .octetStream)
    }

    @Test("a character cut by the end of a full 512-byte prefix is still text; in a whole short file it is not")
    func cutCharacter() {
        let cut = [UInt8](repeating: 0x61, count: 511) + [0xC3]
        #expect(ContentSniffer.type(of: cut, name: "a.txt") == .plainText)
        #expect(ContentSniffer.type(of: cut + [0xA9, 0x61], name: "a.txt") == .plainText)
        #expect(ContentSniffer.type(of: [0x61, 0xC3], name: "a.txt") == .octetStream)
        // Only a cut character is forgiven, not a bad byte that happens to be last.
        #expect(ContentSniffer.type(of: [UInt8](repeating: 0x61, count: 511) + [0xFF], name: "a.txt") == .octetStream)
        let emoji = Array("😀".utf8)
        #expect(ContentSniffer.type(of: [UInt8](repeating: 0x61, count: 509) + emoji[..<3], name: "a") == .plainText)
    }

    @Test("only the first 512 bytes count")
    func prefixOnly() {
        let text = [UInt8](repeating: 0x61, count: 512) + [0, 0, 0xFF]
        #expect(ContentSniffer.type(of: text, name: "a.txt") == .plainText)
    }
}
