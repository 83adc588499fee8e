import Foundation

/// The text embeddings of a zero-shot model's labels (for example CLIP's text encoder run on "a photo of
/// *Ficus lyrata*, a plant"), one row per label, made unit length at load so that a dot product is the cosine
/// similarity.
public struct LabelEmbeddings: Sendable, Equatable {
    /// Values per row.
    public let dimension: Int
    /// Rows one after another, each of unit length.
    public let rows: [Float]

    /// Reads `labels` rows of little-endian float32 from `data`.
    /// - Throws: ``ModelRepositoryError`` when the size is not a whole number of rows, or a row is zero or not finite.
    public init(float32 data: Data, labels: Int) throws {
        guard labels > 0, data.count % (4 * labels) == 0, !data.isEmpty else {
            throw ModelRepositoryError("\(data.count) bytes are not \(labels) rows of float32 (one per label)")
        }
        let values = data.withUnsafeBytes { bytes in
            (0..<(data.count / 4)).map { Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
        dimension = values.count / labels
        var rows: [Float] = []
        rows.reserveCapacity(values.count)
        for label in 0..<labels {
            let row = values[(label * dimension)..<((label + 1) * dimension)]
            let length = row.reduce(0) { $0 + $1 * $1 }.squareRoot()
            guard length.isFinite, length > 0 else { throw ModelRepositoryError("row \(label + 1) is zero or not finite") }
            rows += row.map { $0 / length }
        }
        self.rows = rows
    }

    /// softmax(scale · cos(embedding, row)) over the rows: one probability per label.
    public func probabilities(for embedding: ArraySlice<Float>, scale: Float) -> [Float] {
        let length = embedding.reduce(0) { $0 + $1 * $1 }.squareRoot()
        let unit = embedding.map { $0 / max(length, .leastNormalMagnitude) }
        let logits = (0..<(rows.count / dimension)).map { label in
            zip(unit, rows[(label * dimension)..<((label + 1) * dimension)]).reduce(0) { $0 + $1.0 * $1.1 } * scale
        }
        return OnnxSpeciesClassifier.softmax(logits)
    }
}
