/// One node of a loaded graph: its operator, ready to plan, and the names of the values it reads and writes
/// ("" for an omitted optional input or output).
struct GraphNode: Sendable {
    /// How errors name it: `node 'conv1' (Conv)`, or its index when it has no name.
    var description: String
    var opType: String
    var inputs: [String]
    var outputs: [String]
    var op: any Operator
}

/// A model input or output: name, element type, and shape (nil for a dimension named but not fixed, such as
/// the batch size).
public struct ModelPort: Sendable, Equatable {
    public var name: String
    public var elementType: Tensor.ElementType
    public var shape: [Int?]?
}
