/// Why an image was refused. `message` is written for the person who sent it ("the JPEG is truncated").
public struct ImagingError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// Zero bytes.
        case empty
        /// Not JPEG, PNG, WebP or HEIC (by its first bytes).
        case unsupportedFormat
        /// The data ends before the image does.
        case truncated
        /// The data is damaged.
        case corrupt
        /// More pixels than allowed (a decompression bomb, or simply too big).
        case tooLarge
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// The encodings PlantGuide accepts.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg, png, webp
    /// HEVC-coded HEIF, as iPhones save photos.
    case heic

    /// "image/jpeg", "image/png", "image/webp" or "image/heic".
    public var mediaType: String { "image/\(rawValue)" }

    /// The formats Pl@ntNet takes (JPEG and PNG); the others are converted before they are sent there.
    public var isAcceptedByPlantNet: Bool { self == .jpeg || self == .png }

    /// The format of `bytes` by its signature, or nil.
    public static func detect(_ bytes: UnsafeRawBufferPointer) -> ImageFormat? {
        if bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF { return .jpeg }
        if bytes.count >= 8, Array(bytes[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        if bytes.count >= 12, Array(bytes[0..<4]) == Array("RIFF".utf8), Array(bytes[8..<12]) == Array("WEBP".utf8) { return .webp }
        if isHEIC(bytes) { return .heic }
        return nil
    }

    /// An ISO-BMFF `ftyp` box whose major or compatible brands name HEVC-coded HEIF (`heic`, `heix`, `heim`, `heis`,
    /// `hevc`, `hevx`): a plain `mif1` file may hold AVIF or JPEG images instead, which are not accepted.
    private static func isHEIC(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 16, Array(bytes[4..<8]) == Array("ftyp".utf8) else { return false }
        let boxSize = (0..<4).reduce(0) { $0 << 8 | Int(bytes[$1]) }
        let end = min(bytes.count, boxSize)
        let brands: Set<[UInt8]> = Set(["heic", "heix", "heim", "heis", "hevc", "hevx"].map { Array($0.utf8) })
        // The major brand at 8, the minor version at 12, then compatible brands, four bytes each.
        var offset = 8
        while offset + 4 <= end {
            if brands.contains(Array(bytes[offset..<offset + 4])) { return true }
            offset += offset == 8 ? 8 : 4
        }
        return false
    }
}
