import Foundation

/// A dense, row-major tensor: the values that go into and come out of a model.
///
/// Models compute in 32-bit floats; 64-bit integers and booleans appear only as values known before the run
/// (shapes, pads, axes, masks), which is why they share one integer store.
public struct Tensor: Sendable, Equatable {
    public enum ElementType: String, Sendable, Equatable {
        case float, int64, bool
    }

    public var shape: [Int]
    public var elementType: ElementType
    /// The elements when `elementType` is `.float`, otherwise empty.
    public var floats: [Float]
    /// The elements when `elementType` is `.int64` or `.bool` (0 or 1), otherwise empty.
    public var integers: [Int64]

    public init(shape: [Int], floats: [Float]) {
        precondition(shape.reduce(1, *) == floats.count, "shape \(shape) does not hold \(floats.count) elements")
        self.shape = shape
        self.elementType = .float
        self.floats = floats
        self.integers = []
    }

    public init(shape: [Int], integers: [Int64], elementType: ElementType = .int64) {
        precondition(shape.reduce(1, *) == integers.count, "shape \(shape) does not hold \(integers.count) elements")
        precondition(elementType != .float)
        self.shape = shape
        self.elementType = elementType
        self.floats = []
        self.integers = integers
    }

    public var count: Int { shape.reduce(1, *) }
}

extension Tensor {
    /// Decodes an ONNX TensorProto (initializers, Constant values, node-test data). Only float, int64 and bool
    /// tensors stored in the file itself are accepted.
    public init(_ proto: Onnx_TensorProto) throws(InferenceError) {
        let name = proto.name.isEmpty ? "a tensor" : "tensor '\(proto.name)'"
        guard proto.dataLocation == .default else {
            throw InferenceError(.unsupportedModel, "\(name) keeps its data in an external file, which is not supported")
        }
        let shape = proto.dims.map { Int($0) }
        guard shape.allSatisfy({ $0 >= 0 }) else { throw InferenceError(.malformedModel, "\(name) has a negative dimension") }
        let count = shape.reduce(1, *)
        let raw = proto.rawData
        func check(_ found: Int) throws(InferenceError) {
            guard found == count else {
                throw InferenceError(.malformedModel, "\(name) has shape \(shape) but \(found) elements")
            }
        }
        switch proto.elementType {
        case .float:
            let values: [Float] = raw.isEmpty ? proto.floatData : Self.decode(raw, as: UInt32.self).map { Float(bitPattern: $0) }
            try check(values.count)
            self.init(shape: shape, floats: values)
        case .int64:
            let values: [Int64] = raw.isEmpty ? proto.int64Data : Self.decode(raw, as: UInt64.self).map { Int64(bitPattern: $0) }
            try check(values.count)
            self.init(shape: shape, integers: values)
        case .bool:
            let values: [Int64] = raw.isEmpty ? proto.int32Data.map { $0 == 0 ? 0 : 1 } : raw.map { $0 == 0 ? 0 : 1 }
            try check(values.count)
            self.init(shape: shape, integers: values, elementType: .bool)
        default:
            throw InferenceError(
                .unsupportedModel, "\(name) has element type \(proto.elementType), only float, int64 and bool are supported")
        }
    }

    /// The ONNX TensorProto of this tensor, raw little-endian data.
    public func proto(name: String = "") -> Onnx_TensorProto {
        var proto = Onnx_TensorProto()
        proto.name = name
        proto.dims = shape.map { Int64($0) }
        switch elementType {
        case .float:
            proto.dataType = Int32(Onnx_TensorProto.DataType.float.rawValue)
            proto.rawData = floats.withUnsafeBytes { Data($0) }
        case .int64:
            proto.dataType = Int32(Onnx_TensorProto.DataType.int64.rawValue)
            proto.rawData = integers.withUnsafeBytes { Data($0) }
        case .bool:
            proto.dataType = Int32(Onnx_TensorProto.DataType.bool.rawValue)
            proto.rawData = Data(integers.map { UInt8($0) })
        }
        return proto
    }

    private static func decode<T: FixedWidthInteger>(_ data: Data, as: T.Type) -> [T] {
        let count = data.count / MemoryLayout<T>.size
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            data.withUnsafeBytes { bytes in
                // One copy on little-endian hosts (every platform Swift runs PlantGuide on); swapped otherwise.
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[..<(count * MemoryLayout<T>.size)]))
            }
            if T(littleEndian: 1) != 1 { for i in 0..<count { buffer[i] = T(littleEndian: buffer[i]) } }
            initialized = count
        }
    }
}

extension Onnx_TensorProto {
    /// The element type as the enum (the schema stores it as an int32).
    var elementType: Onnx_TensorProto.DataType { .init(rawValue: Int(dataType)) ?? .undefined }
}
