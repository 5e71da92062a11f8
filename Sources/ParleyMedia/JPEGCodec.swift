internal import CTurboJPEG

/// JPEG through libturbojpeg: a header read, a decode shrunk by the library's own DCT scaling (a 1/8 scale
/// decodes a 48-megapixel photo in a fraction of the time and memory), and an encode.
enum JPEGCodec {
    /// The picture decoded at the smallest of libturbojpeg's scales (1/8 ... 1) whose size is at least
    /// `target(width, height)` of the declared size; refused over `maximumPixels` before any buffer exists.
    static func decode(
        _ bytes: [UInt8], maximumPixels: Int, target: (Int, Int) -> (width: Int, height: Int)
    ) throws(MediaError) -> RGBImage {
        let handle = try makeHandle(tjInitDecompress(), failure: MediaError.undecodablePicture)
        defer { tjDestroy(handle) }
        let (width, height) = try header(bytes, handle)
        guard width * height <= maximumPixels else { throw .pictureTooLarge(width: width, height: height) }
        let (targetWidth, targetHeight) = target(width, height)
        let (scaledWidth, scaledHeight) = scaledSize(width, height, covering: targetWidth, targetHeight)
        var pixels = [UInt8](repeating: 0, count: scaledWidth * scaledHeight * 3)
        // LIMITSCANS: a progressive JPEG of thousands of tiny scans takes minutes to decode; 500 is plenty.
        let flags = TJFLAG_LIMITSCANS | TJFLAG_FASTDCT
        let status = bytes.withUnsafeBufferPointer { jpeg in
            pixels.withUnsafeMutableBufferPointer { output in
                tjDecompress2(
                    handle, jpeg.baseAddress, UInt(jpeg.count), output.baseAddress, Int32(scaledWidth), 0,
                    Int32(scaledHeight), Int32(TJPF_RGB.rawValue), flags)
            }
        }
        // A warning ("corrupt JPEG data: extraneous bytes", "premature end of data") still leaves the
        // pixels decoded so far, grey beyond: common in real files and good enough for a preview.
        guard status == 0 || tjGetErrorCode(handle) == TJERR_WARNING.rawValue else {
            throw .undecodablePicture(errorMessage(handle))
        }
        return RGBImage(width: scaledWidth, height: scaledHeight, pixels: pixels)
    }

    static func encode(_ image: RGBImage, quality: Int) throws(MediaError) -> [UInt8] {
        let handle = try makeHandle(tjInitCompress(), failure: MediaError.thumbnailEncodingFailed)
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        defer { tjFree(output) }
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            tjCompress2(
                handle, pixels.baseAddress, Int32(image.width), 0, Int32(image.height), Int32(TJPF_RGB.rawValue),
                &output, &size, Int32(TJSAMP_420.rawValue), Int32(quality), TJFLAG_FASTDCT)
        }
        guard status == 0, let output else { throw .thumbnailEncodingFailed(errorMessage(handle)) }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    private static func makeHandle(
        _ handle: tjhandle?, failure: (String) -> MediaError
    ) throws(MediaError) -> tjhandle {
        guard let handle else { throw failure("libturbojpeg could not start: \(errorMessage(nil))") }
        return handle
    }

    private static func header(_ bytes: [UInt8], _ handle: tjhandle) throws(MediaError) -> (Int, Int) {
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colourspace: Int32 = 0
        let status = bytes.withUnsafeBufferPointer { jpeg in
            tjDecompressHeader3(handle, jpeg.baseAddress, UInt(jpeg.count), &width, &height, &subsampling, &colourspace)
        }
        guard status == 0 else { throw .undecodablePicture(errorMessage(handle)) }
        guard width > 0, height > 0 else { throw .malformedPicture("the JPEG declares \(width)×\(height) pixels") }
        return (Int(width), Int(height))
    }

    /// The smallest scaled size libturbojpeg offers, no larger than the picture, that still covers the target.
    private static func scaledSize(
        _ width: Int, _ height: Int, covering targetWidth: Int, _ targetHeight: Int
    ) -> (Int, Int) {
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count) else { return (width, height) }
        var best = (width, height)
        for factor in UnsafeBufferPointer(start: factors, count: Int(count)) where factor.num <= factor.denom {
            let (num, denom) = (Int(factor.num), Int(factor.denom))
            // TJSCALED: rounded up, as the library scales.
            let scaled = ((width * num + denom - 1) / denom, (height * num + denom - 1) / denom)
            if scaled.0 >= targetWidth, scaled.1 >= targetHeight, scaled.0 * scaled.1 < best.0 * best.1 {
                best = scaled
            }
        }
        return best
    }

    private static func errorMessage(_ handle: tjhandle?) -> String {
        guard let message = tjGetErrorStr2(handle) else { return "unknown libturbojpeg error" }
        return String(cString: message)
    }
}
