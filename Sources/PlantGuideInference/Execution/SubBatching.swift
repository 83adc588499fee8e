import Foundation

/// Running a batch as smaller batches, one after another, where the batch's activations would not stay in the CPU's
/// last-level cache: each layer of MobileNetV2 or ConvNeXt-tiny writes up to 4.8 MB per image, 38 MB for 8 images, and
/// at batch 8 every layer then reads its input from memory. MobileNetV2 at batch 8 on a 32 MB L3 (Zen 4): 70.6-71.3 ms
/// whole, 66.2-66.4 as eight batches of one (AVX-512). Models whose activations are small (the default model: 0.6 MB
/// an image) keep the whole batch, which spreads each layer's fixed costs over more images (1.14 ms an image at batch
/// 8, 4.4 at batch 1).
enum SubBatching {
    /// Activation bytes a sub-batch's largest value may take: a quarter of the L3 the first core shares (the rest: the
    /// layer's input, the weights, what other processes keep there), else of 32 MB. From sysfs, which gives the one
    /// cache: glibc's sysconf answers the whole package's (320 MB on a 2-core share of an EPYC, 32 MB per CCD).
    static let budget: Int = {
        let text = (try? String(contentsOfFile: "/sys/devices/system/cpu/cpu0/cache/index3/size", encoding: .utf8)) ?? ""
        return (cacheBytes(text) ?? 32 << 20) / 4
    }()

    /// "32768K" (sysfs's cache size) in bytes; nil for anything else.
    static func cacheBytes(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        if let last = trimmed.last, let unit = units[last], let value = Int(trimmed.dropLast()), value > 0 { return value * unit }
        return Int(trimmed).flatMap { $0 > 0 ? $0 : nil }
    }

    /// The images per sub-batch for a batch of `batch` whose largest value takes `largestValueBytes`: the whole batch
    /// where it fits the budget, or where the weights alone (`weightBytes`) do not fit the cache, since every
    /// sub-batch streams them from memory again (ConvNeXt-tiny's 112 MB: 828 ms for 8 images whole on AVX-512, 849 as
    /// eight). `budget` is the machine's unless a test gives its own.
    static func size(batch: Int, largestValueBytes: Int, weightBytes: Int, budget: Int = budget) -> Int {
        guard weightBytes <= 4 * budget else { return batch }
        let perImage = max(largestValueBytes / max(batch, 1), 1)
        return min(batch, max(1, budget / perImage))
    }

    /// The common leading dimension of every input (the batch), nil when an input is not float or they differ.
    static func batch(of inputs: [String: Tensor]) -> Int? {
        let leading = Set(inputs.values.map { $0.elementType == .float ? $0.shape.first ?? 0 : 0 })
        guard leading.count == 1, let batch = leading.first, batch > 1 else { return nil }
        return batch
    }

    /// Images `range` of each input.
    static func slice(_ inputs: [String: Tensor], _ range: Range<Int>) -> [String: Tensor] {
        inputs.mapValues { tensor in
            let image = tensor.count / tensor.shape[0]
            return Tensor(shape: [range.count] + tensor.shape.dropFirst(), floats: Array(tensor.floats[range.lowerBound * image..<range.upperBound * image]))
        }
    }

    /// The sub-batches' outputs joined along the batch, nil when an output is not float or has no batch dimension.
    static func join(_ parts: [[String: Tensor]], batch: Int) -> [String: Tensor]? {
        guard let first = parts.first else { return nil }
        var joined: [String: Tensor] = [:]
        for (name, tensor) in first {
            let pieces = parts.compactMap { $0[name] }
            guard pieces.count == parts.count, pieces.allSatisfy({ $0.elementType == .float && !$0.shape.isEmpty }) else { return nil }
            let images = pieces.reduce(0) { $0 + $1.shape[0] }
            guard images == batch else { return nil }
            joined[name] = Tensor(shape: [batch] + tensor.shape.dropFirst(), floats: pieces.flatMap(\.floats))
        }
        return joined
    }

    /// Whether two runs' outputs agree: the same names and shapes, every value within float rounding.
    static func agree(_ a: [String: Tensor], _ b: [String: Tensor]) -> Bool {
        guard a.keys == b.keys else { return false }
        return a.allSatisfy { name, x in
            guard let y = b[name], x.shape == y.shape, x.elementType == y.elementType else { return false }
            guard x.elementType == .float else { return x.integers == y.integers }
            return zip(x.floats, y.floats).allSatisfy { abs($0 - $1) <= 1e-4 * (1 + abs($0)) || ($0.isNaN && $1.isNaN) }
        }
    }
}
