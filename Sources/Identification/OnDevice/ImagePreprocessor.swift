import PlantGuideImaging

/// Turns an upright photo into the model's input as its configuration says: resize (stretch or centre crop),
/// scale, per-channel mean and std, channel order, planar (CHW) floats.
struct ImagePreprocessor: Sendable {
    let input: ModelConfiguration.Input

    /// Floats per image: 3 × height × width.
    var count: Int { 3 * input.width * input.height }

    /// Writes one image's input into `target` (count floats).
    func write(_ image: RGBImage, into target: UnsafeMutableBufferPointer<Float>) {
        let fitted = resized(image)
        let plane = input.width * input.height
        let channels = input.channelOrder == .rgb ? [0, 1, 2] : [2, 1, 0]
        fitted.pixels.withUnsafeBufferPointer { pixels in
            for (planeIndex, channel) in channels.enumerated() {
                let factor = input.scale / input.std[planeIndex]
                let offset = input.mean[planeIndex] / input.std[planeIndex]
                let out = target.baseAddress! + planeIndex * plane
                for i in 0..<plane { out[i] = Float(pixels[i * 3 + channel]) * factor - offset }
            }
        }
    }

    private func resized(_ image: RGBImage) -> RGBImage {
        switch input.resize {
        case .stretch:
            return image.resized(width: input.width, height: input.height)
        case .centerCrop:
            let side = max(1, Int(Double(min(image.width, image.height)) * input.crop))
            return Self.crop(image, x: (image.width - side) / 2, y: (image.height - side) / 2, width: side, height: side)
                .resized(width: input.width, height: input.height)
        }
    }

    static func crop(_ image: RGBImage, x: Int, y: Int, width: Int, height: Int) -> RGBImage {
        guard x != 0 || y != 0 || width != image.width || height != image.height else { return image }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for row in 0..<height {
            let from = ((y + row) * image.width + x) * 3
            pixels[(row * width * 3)..<((row + 1) * width * 3)] = image.pixels[from..<(from + width * 3)]
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }
}
