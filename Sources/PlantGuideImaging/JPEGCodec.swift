import CImageCodecs
import CJPEGEighth
import Foundation

/// JPEG through libjpeg-turbo's TurboJPEG API: header reads, decoding at a reduced DCT scale, and encoding.
public enum JPEGCodec {
    /// Width and height as stored.
    static func size(_ bytes: UnsafeRawBufferPointer) throws -> (Int, Int) {
        guard let handle = tjInitDecompress() else { throw ImagingError(.corrupt, "cannot start the JPEG decoder") }
        defer { tjDestroy(handle) }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        guard tjDecompressHeader3(handle, bytes.bindMemory(to: UInt8.self).baseAddress, UInt(bytes.count),
                                  &width, &height, &subsampling, &colorspace) == 0 else {
            throw error(handle, "header")
        }
        return (Int(width), Int(height))
    }

    /// Decodes at the smallest libjpeg-turbo scale (1/8 … 1) whose long side is still at least `atLeast`.
    static func decode(_ bytes: UnsafeRawBufferPointer, storedWidth: Int, storedHeight: Int, atLeast: Int?) throws -> RGBImage {
        guard let handle = tjInitDecompress() else { throw ImagingError(.corrupt, "cannot start the JPEG decoder") }
        defer { tjDestroy(handle) }
        var (width, height) = (storedWidth, storedHeight)
        if let atLeast {
            var count: Int32 = 0
            if let factors = tjGetScalingFactors(&count) {
                for factor in UnsafeBufferPointer(start: factors, count: Int(count)) where factor.num <= factor.denom {
                    let w = (storedWidth * Int(factor.num) + Int(factor.denom) - 1) / Int(factor.denom)
                    let h = (storedHeight * Int(factor.num) + Int(factor.denom) - 1) / Int(factor.denom)
                    if max(w, h) >= atLeast && w * h < width * height { (width, height) = (w, h) }
                }
            }
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        if eighthThreads > 0, width == (storedWidth + 7) / 8, height == (storedHeight + 7) / 8, decodeEighth(bytes, into: &pixels) {
            return RGBImage(width: width, height: height, pixels: pixels)
        }
        let flags = TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS
        let result = pixels.withUnsafeMutableBufferPointer { target in
            tjDecompress2(handle, bytes.bindMemory(to: UInt8.self).baseAddress, UInt(bytes.count), target.baseAddress,
                          Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue), flags)
        }
        guard result == 0 else { throw error(handle, "data") }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// Threads for one 1/8-scale decode: two where the machine has them. `PLANTGUIDE_JPEG_EIGHTH=off` leaves every
    /// JPEG to libjpeg-turbo (for comparison, or should the fast path ever misread a file).
    private static let eighthThreads: Int32 = ProcessInfo.processInfo.environment["PLANTGUIDE_JPEG_EIGHTH"] == "off"
        ? 0 : Int32(min(2, ProcessInfo.processInfo.activeProcessorCount))

    /// The 1/8 scale from DC coefficients alone, split over two threads (`CJPEGEighth`): 2-3× faster than
    /// libjpeg-turbo on large photos, with the same pixels (chroma within 2 levels). False for a JPEG it does not
    /// handle or finds damaged: libjpeg-turbo then decodes it, or says what is wrong.
    private static func decodeEighth(_ bytes: UnsafeRawBufferPointer, into pixels: inout [UInt8]) -> Bool {
        let data = bytes.bindMemory(to: UInt8.self)
        return pixels.withUnsafeMutableBufferPointer { target in
            jpeg_eighth_decode(data.baseAddress, data.count, target.baseAddress, eighthThreads) == JPEG_EIGHTH_OK
        }
    }

    /// Encodes `image` as a baseline JPEG (4:2:0) of the given quality (1–100).
    public static func encode(_ image: RGBImage, quality: Int = 82) throws -> [UInt8] {
        guard let handle = tjInitCompress() else { throw ImagingError(.corrupt, "cannot start the JPEG encoder") }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = image.pixels.withUnsafeBufferPointer { source in
            tjCompress2(handle, source.baseAddress, Int32(image.width), 0, Int32(image.height), Int32(TJPF_RGB.rawValue),
                        &output, &size, Int32(TJSAMP_420.rawValue), Int32(min(max(quality, 1), 100)), TJFLAG_FASTDCT)
        }
        defer { tjFree(output) }
        guard result == 0, let output else { throw error(handle, "encoding") }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    private static func error(_ handle: tjhandle, _ stage: String) -> ImagingError {
        let text = String(cString: tjGetErrorStr2(handle))
        // A file cut off inside its data ends prematurely; one cut off before the data has no scan (SOS) at all.
        if text.lowercased().contains("premature end") || text.lowercased().contains("missing sos") {
            return ImagingError(.truncated, "the JPEG is truncated")
        }
        return ImagingError(.corrupt, "the JPEG is damaged (\(stage): \(text))")
    }
}
