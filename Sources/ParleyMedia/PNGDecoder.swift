internal import CPNG

/// PNG through libpng's simplified API: any PNG (palette, grey, 16-bit, interlaced) comes out as 8-bit RGB,
/// transparency composited on white.
enum PNGDecoder {
    static func decode(_ bytes: [UInt8], maximumPixels: Int) throws(MediaError) -> RGBImage {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        // libpng keeps reading `bytes` until finish_read (or png_image_free) is done with them.
        return try bytes.withUnsafeBufferPointer { (png) throws(MediaError) -> RGBImage in
            guard png_image_begin_read_from_memory(&image, png.baseAddress, png.count) != 0 else {
                throw .undecodablePicture(message(of: &image))
            }
            let (width, height) = (Int(image.width), Int(image.height))
            // begin_read read the header only: nothing of the pixels' size is allocated yet.
            guard width * height <= maximumPixels else {
                png_image_free(&image)
                throw .pictureTooLarge(width: width, height: height)
            }
            image.format = UInt32(PNG_FORMAT_RGB)
            var white = png_color(red: 255, green: 255, blue: 255)
            var pixels = [UInt8](repeating: 0, count: width * height * 3)
            let status = pixels.withUnsafeMutableBytes { output in
                png_image_finish_read(&image, &white, output.baseAddress, 0, nil)
            }
            // finish_read frees libpng's state whether it succeeds or fails.
            guard status != 0 else { throw .undecodablePicture(message(of: &image)) }
            return RGBImage(width: width, height: height, pixels: pixels)
        }
    }

    /// libpng's own account of what went wrong (a NUL-terminated 64-byte field of the image).
    private static func message(of image: inout png_image) -> String {
        withUnsafeBytes(of: &image.message) { field in
            let text = String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
            return text.isEmpty ? "libpng failed" : "libpng: \(text)"
        }
    }
}
