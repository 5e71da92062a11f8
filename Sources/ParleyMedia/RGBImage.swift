/// Decoded pixels, three bytes (red, green, blue) each, row after row: what the thumbnail is made of.
struct RGBImage: Equatable {
    let width: Int
    let height: Int
    let pixels: [UInt8]

    /// `width` × `height` pixels, each the average of the box of source pixels it covers (both sides
    /// shrink or stay; a box is at least one pixel).
    func downscaled(width newWidth: Int, height newHeight: Int) -> RGBImage {
        guard newWidth != width || newHeight != height else { return self }
        let columns = (0..<newWidth).map { Self.box($0, of: newWidth, over: width) }
        var output = [UInt8](repeating: 0, count: newWidth * newHeight * 3)
        var sums = [Int](repeating: 0, count: newWidth * 3)
        pixels.withUnsafeBufferPointer { source in
            for y in 0..<newHeight {
                let rows = Self.box(y, of: newHeight, over: height)
                for index in sums.indices { sums[index] = 0 }
                for row in rows {
                    let rowStart = row * width * 3
                    for (x, box) in columns.enumerated() {
                        for column in box {
                            let pixel = rowStart + column * 3
                            sums[x * 3] += Int(source[pixel])
                            sums[x * 3 + 1] += Int(source[pixel + 1])
                            sums[x * 3 + 2] += Int(source[pixel + 2])
                        }
                    }
                }
                for (x, box) in columns.enumerated() {
                    let area = box.count * rows.count
                    for channel in 0..<3 {
                        output[(y * newWidth + x) * 3 + channel] = UInt8((sums[x * 3 + channel] + area / 2) / area)
                    }
                }
            }
        }
        return RGBImage(width: newWidth, height: newHeight, pixels: output)
    }

    /// The source indices output index `index` of `count` covers, out of `sourceCount` (≥ `count`).
    private static func box(_ index: Int, of count: Int, over sourceCount: Int) -> Range<Int> {
        let start = index * sourceCount / count
        return start..<max(start + 1, (index + 1) * sourceCount / count)
    }

    /// Turned upright as EXIF orientation `orientation` asks (1: as stored; 2...8: mirrored and/or
    /// rotated); orientations 5...8 swap width and height.
    func oriented(_ orientation: Int) -> RGBImage {
        guard (2...8).contains(orientation) else { return self }
        let swaps = orientation >= 5
        let (newWidth, newHeight) = swaps ? (height, width) : (width, height)
        var output = [UInt8](repeating: 0, count: pixels.count)
        for y in 0..<newHeight {
            for x in 0..<newWidth {
                // Where the pixel shown at (x, y) is stored.
                let (column, row) =
                    switch orientation {
                    case 2: (width - 1 - x, y)
                    case 3: (width - 1 - x, height - 1 - y)
                    case 4: (x, height - 1 - y)
                    case 5: (y, x)
                    case 6: (y, height - 1 - x)
                    case 7: (width - 1 - y, height - 1 - x)
                    default: (width - 1 - y, x)
                    }
                let from = (row * width + column) * 3, to = (y * newWidth + x) * 3
                output[to] = pixels[from]
                output[to + 1] = pixels[from + 1]
                output[to + 2] = pixels[from + 2]
            }
        }
        return RGBImage(width: newWidth, height: newHeight, pixels: output)
    }
}
