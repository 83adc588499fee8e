import Foundation

/// A model folder's `config.json`: what the model is and how photos become its input.
public struct ModelConfiguration: Decodable, Sendable, Equatable {
    public enum Task: String, Decodable, Sendable {
        /// Classes are species: answers are identifications.
        case species
        /// Classes are crop × leaf condition (healthy, a disease): the species is the crop.
        case leafCondition = "leaf-condition"
    }

    public struct Input: Decodable, Sendable, Equatable {
        public enum Resize: String, Decodable, Sendable {
            /// The whole photo scaled to width × height, aspect ratio not kept.
            case stretch
            /// The centre square (a `crop` fraction of the shorter side) scaled to width × height.
            case centerCrop = "center-crop"
        }

        public enum ChannelOrder: String, Decodable, Sendable { case rgb = "RGB", bgr = "BGR" }

        /// The graph input's name.
        public var name: String
        public var width: Int
        public var height: Int
        public var resize: Resize = .stretch
        public var crop: Double = 1
        public var channelOrder: ChannelOrder = .rgb
        /// Pixel values (0–255) are multiplied by `scale`, then (x − mean) / std per channel.
        public var scale: Float = 1.0 / 255
        public var mean: [Float] = [0, 0, 0]
        public var std: [Float] = [1, 1, 1]

        enum CodingKeys: String, CodingKey { case name, width, height, resize, crop, channelOrder, scale, mean, std, layout }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            width = try container.decode(Int.self, forKey: .width)
            height = try container.decode(Int.self, forKey: .height)
            resize = try container.decodeIfPresent(Resize.self, forKey: .resize) ?? .stretch
            crop = try container.decodeIfPresent(Double.self, forKey: .crop) ?? 1
            channelOrder = try container.decodeIfPresent(ChannelOrder.self, forKey: .channelOrder) ?? .rgb
            scale = try container.decodeIfPresent(Float.self, forKey: .scale) ?? 1.0 / 255
            mean = try container.decodeIfPresent([Float].self, forKey: .mean) ?? [0, 0, 0]
            std = try container.decodeIfPresent([Float].self, forKey: .std) ?? [1, 1, 1]
            let layout = try container.decodeIfPresent(String.self, forKey: .layout) ?? "NCHW"
            guard layout == "NCHW" else {
                throw DecodingError.dataCorruptedError(forKey: .layout, in: container, debugDescription: "only NCHW inputs are supported")
            }
            guard (1...4096).contains(width), (1...4096).contains(height), crop > 0, crop <= 1,
                  mean.count == 3, std.count == 3, std.allSatisfy({ $0 != 0 })
            else {
                throw DecodingError.dataCorruptedError(
                    forKey: .width, in: container,
                    debugDescription: "width and height must be 1–4096, crop in (0, 1], mean and std three values with std ≠ 0")
            }
        }
    }

    public struct Output: Decodable, Sendable, Equatable {
        public enum Kind: String, Decodable, Sendable {
            /// One score per label, before softmax.
            case logits
            /// One probability per label.
            case probabilities
            /// An image embedding (a CLIP-style encoder): labels are ranked by the cosine similarity of their text
            /// embeddings (`text_embeddings`), scaled by `logit_scale` and put through softmax, so that any
            /// species list can be served without training.
            case embedding
        }

        public var name: String
        public var kind: Kind
        /// For `embedding`: the file in the model folder holding one text embedding per label, in the labels'
        /// order: little-endian float32, each row as long as the model's embedding.
        public var textEmbeddings: String?
        /// For `embedding`: what cosine similarities are multiplied by before softmax (CLIP's learned 100 by default).
        public var logitScale: Float?
    }

    public var name: String
    public var version: String
    public var task: Task
    /// Answers are never presented as a confident identification.
    public var experimental: Bool?
    public var description: String?
    public var source: String?
    public var input: Input
    public var output: Output
    /// The labels file in the model folder (TSV with a `scientific_name` column).
    public var labels: String

    public var isExperimental: Bool { experimental ?? false }
}
