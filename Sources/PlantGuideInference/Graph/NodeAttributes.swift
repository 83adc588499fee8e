/// A node's attributes, read with the type and default the operator's specification gives them.
struct NodeAttributes {
    /// How errors name the node: `node 'conv1' (Conv)`.
    let node: String
    private let byName: [String: Onnx_AttributeProto]

    init(_ proto: Onnx_NodeProto, description: String) throws(InferenceError) {
        node = description
        var byName: [String: Onnx_AttributeProto] = [:]
        for attribute in proto.attribute {
            guard attribute.refAttrName.isEmpty else {
                throw InferenceError(.unsupportedModel, "\(description): attribute references (functions) are not supported")
            }
            byName[attribute.name] = attribute
        }
        self.byName = byName
    }

    func has(_ name: String) -> Bool { byName[name] != nil }

    func int(_ name: String, default value: Int) -> Int {
        byName[name].map { Int($0.i) } ?? value
    }

    func ints(_ name: String) -> [Int]? {
        byName[name].map { $0.ints.map { Int($0) } }
    }

    func float(_ name: String, default value: Float) -> Float {
        byName[name]?.f ?? value
    }

    func string(_ name: String, default value: String) -> String {
        byName[name].map { String(decoding: $0.s, as: UTF8.self) } ?? value
    }

    func tensor(_ name: String) throws(InferenceError) -> Tensor? {
        guard let attribute = byName[name] else { return nil }
        do { return try Tensor(attribute.t) } catch { throw InferenceError(error.code, "\(node): \(error.message)") }
    }

    /// The `floats` list of an attribute, when present.
    func floats(_ name: String) -> [Float]? { byName[name]?.floats }

    /// An error about this node: something valid it does that this executor does not run.
    func error(_ message: String) -> InferenceError { error(.unsupportedModel, message) }

    /// An error about this node.
    func error(_ code: InferenceError.Code, _ message: String) -> InferenceError {
        InferenceError(code, "\(node): \(message)")
    }
}
