/// Why an image was refused. `message` is written for the person who sent it ("the JPEG is truncated").
public struct ImagingError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// Zero bytes.
        case empty
        /// Not JPEG, PNG or WebP (by its first bytes).
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

    /// "image/jpeg", "image/png" or "image/webp".
    public var mediaType: String { "image/\(rawValue)" }

    /// The format of `bytes` by its signature, or nil.
    public static func detect(_ bytes: UnsafeRawBufferPointer) -> ImageFormat? {
        if bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF { return .jpeg }
        if bytes.count >= 8, Array(bytes[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        if bytes.count >= 12, Array(bytes[0..<4]) == Array("RIFF".utf8), Array(bytes[8..<12]) == Array("WEBP".utf8) { return .webp }
        return nil
    }
}
