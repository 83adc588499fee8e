import Foundation
import PlantGuideImaging
import PlantGuideTestSupport
import Testing

@Suite("Decoding photos", .cpuHeavy)
struct ImageDecoderTests {
    @Test("JPEG, PNG, WebP and HEIC decode to the pixels they were made from", arguments: ImageFormat.allCases)
    func roundTrip(format: ImageFormat) throws {
        let original = TestImages.halves(width: 64, height: 48)
        let data = switch format {
        case .jpeg: try TestImages.jpeg(original)
        case .png: TestImages.png(original)
        case .webp: TestImages.webp(original)
        case .heic: try TestImages.heic(original)
        }

        let info = try ImageDecoder.inspect(data)
        let image = try ImageDecoder.decode(data)

        #expect(info == .init(format: format, width: 64, height: 48, orientation: .up))
        #expect(image.width == 64 && image.height == 48)
        let (left, right) = (image[8, 24], image[56, 24])
        #expect(left.r > 180 && left.b < 70, "left is red: \(left)")
        #expect(right.b > 180 && right.r < 70, "right is blue: \(right)")
    }

    @Test("EXIF orientation 6 (a phone held upright) turns the picture a quarter clockwise")
    func orientation() throws {
        let data = TestImages.withOrientation(try TestImages.jpeg(TestImages.halves(width: 40, height: 20)), 6)

        let info = try ImageDecoder.inspect(data)
        let image = try ImageDecoder.decode(data)

        #expect(info.orientation == .right && info.width == 20 && info.height == 40)
        #expect(image.width == 20 && image.height == 40)
        #expect(image[10, 5].r > 180, "the red left half is now on top")
        #expect(image[10, 35].b > 180, "the blue right half is now at the bottom")
    }

    @Test("a HEIC that says to turn a quarter clockwise (an iPhone held upright) decodes upright, turned once, not twice")
    func heicOrientation() throws {
        let data = try TestImages.heic(TestImages.halves(width: 64, height: 32), rotatedClockwise: true)

        let info = try ImageDecoder.inspect(data)
        let image = try ImageDecoder.decode(data)
        let thumbnail = try Thumbnailer.thumbnail(of: data, longSide: 16)

        #expect(info == .init(format: .heic, width: 32, height: 64, orientation: .up))
        #expect(image.width == 32 && image.height == 64)
        #expect(image[16, 10].r > 180 && image[16, 54].b > 180, "red on top, blue at the bottom")
        #expect(thumbnail.width == 8 && thumbnail.height == 16)
        #expect(try ImageDecoder.inspect(Data(thumbnail.jpeg)).format == .jpeg, "thumbnails are JPEG")
    }

    @Test("every orientation gives the upright size", arguments: 1...8)
    func allOrientations(value: Int) throws {
        let data = TestImages.withOrientation(try TestImages.jpeg(TestImages.gradient(width: 30, height: 10)), UInt8(value))
        let image = try ImageDecoder.decode(data)
        #expect(value >= 5 ? (image.width, image.height) == (10, 30) : (image.width, image.height) == (30, 10))
    }

    @Test("a large JPEG is decoded at reduced scale straight to about the wanted size")
    func scaledDecode() throws {
        let data = try TestImages.jpeg(TestImages.gradient(width: 4_000, height: 3_000))

        let image = try ImageDecoder.decode(data, maxLongSide: 1_024)
        let thumbnail = try Thumbnailer.thumbnail(of: data, longSide: 256)

        #expect(image.width == 1_024 && image.height == 768)
        #expect(thumbnail.width == 256 && thumbnail.height == 192)
        #expect(try ImageDecoder.inspect(Data(thumbnail.jpeg)).format == .jpeg)
    }

    @Test("bad input is refused with a reason", arguments: [
        ("empty", ImagingError.Code.empty),
        ("text", .unsupportedFormat),
        ("gif", .unsupportedFormat),
        ("truncated jpeg", .truncated),
        ("png bomb", .tooLarge),
        ("truncated png", .truncated),
        ("damaged webp", .corrupt),
        ("truncated heic", .truncated),
        ("damaged heic", .corrupt),
        ("avif", .unsupportedFormat),
    ])
    func badInput(name: String, code: ImagingError.Code) throws {
        let photo = TestImages.gradient(width: 320, height: 240)
        let data: Data = switch name {
        case "empty": Data()
        case "text": Data("this is not a photo".utf8)
        case "gif": Data("GIF89a".utf8) + Data(repeating: 0, count: 20)
        case "truncated jpeg": try TestImages.jpeg(photo).prefix(2_000)
        case "png bomb": TestImages.pngHeader(width: 100_000, height: 100_000)
        case "truncated png": TestImages.png(photo).prefix(400)
        case "truncated heic": try TestImages.heic(photo).prefix(600)
        case "damaged heic": try Self.damaged(TestImages.heic(photo))
        // An AVIF is HEIF too (ftyp avif, compatible mif1) but not HEVC: not taken for a HEIC.
        case "avif": Data([0, 0, 0, 0x1C] + Array("ftypavif".utf8) + [0, 0, 0, 0] + Array("avifmif1miaf".utf8)) + Data(count: 40)
        default: TestImages.webp(photo).prefix(40) + Data(repeating: 0x55, count: 200)
        }

        let error = #expect(throws: ImagingError.self) { _ = try ImageDecoder.decode(data) }

        #expect(error?.code == code, "\(name): \(error?.message ?? "no error")")
        #expect(error?.message.isEmpty == false)
    }

    /// `heic` with the boxes after its `ftyp` overwritten (HEVC itself shrugs off damaged picture data, as video
    /// decoders do, and shows garbage pixels; a damaged container is refused).
    private static func damaged(_ heic: Data) -> Data {
        var bytes = [UInt8](heic)
        for index in 40..<160 { bytes[index] = 0xFF }
        return Data(bytes)
    }

    @Test("a damaged JPEG is refused, never crashes")
    func damagedJPEG() throws {
        var bytes = [UInt8](try TestImages.jpeg(TestImages.gradient(width: 320, height: 240)))
        for index in stride(from: 700, to: bytes.count - 2, by: 97) { bytes[index] ^= 0xA5 }

        let error = #expect(throws: ImagingError.self) { _ = try ImageDecoder.decode(Data(bytes)) }

        #expect(error?.code == .corrupt || error?.code == .truncated)
    }
}
