/// Why a model could not be loaded or run. Load-time errors name the node at fault.
public struct InferenceError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The file is not a valid ONNX model (bad protobuf, dangling names, inconsistent shapes).
        case malformedModel
        /// Valid ONNX that this executor does not run (an operator, attribute or element type it lacks).
        case unsupportedModel
        /// The inputs given to `run` do not fit the model.
        case invalidInput
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
