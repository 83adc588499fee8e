import Foundation

/// One folder of ONNX's backend node tests: `model.onnx` and `test_data_set_*/input_K.pb, output_K.pb`. Runs
/// every data set and compares each output with ONNX's own tolerance (|actual − expected| ≤ atol + rtol·|expected|).
public struct NodeTest: Sendable {
    public struct Outcome: Sendable {
        public var dataSets: Int
        /// One line per mismatch (data set, output, element, values), or the error that stopped the run.
        public var failures: [String]
        /// The largest |actual − expected| over every float output, and the largest |expected|: their ratio is
        /// the error relative to the outputs' range.
        public var maxAbsoluteError: Float = 0
        public var maxExpected: Float = 0
        public var passed: Bool { failures.isEmpty && dataSets > 0 }
    }

    public let directory: URL
    /// ONNX's backend-test defaults.
    public var relativeTolerance: Float = 1e-3
    public var absoluteTolerance: Float = 1e-7
    /// Compare against `relativeTolerance · max|expected|` instead of element by element: for whole networks,
    /// where outputs near zero carry the rounding of every layer before them.
    public var relativeToRange = false

    public init(directory: URL) {
        self.directory = directory
    }

    /// Loads the model and runs every data set. Load errors (unsupported operators, malformed files) throw.
    public func run() throws(InferenceError) -> Outcome {
        let model = try InferenceModel(contentsOf: directory.appendingPathComponent("model.onnx"))
        let session = InferenceSession(model: model)
        let dataSets = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasPrefix("test_data_set_") }.sorted()
        var failures: [String] = []
        var maxError: Float = 0, maxExpected: Float = 0
        for name in dataSets {
            let folder = directory.appendingPathComponent(name)
            let inputs = try tensors(in: folder, prefix: "input_")
            let expected = try tensors(in: folder, prefix: "output_")
            guard inputs.count == model.inputs.count, expected.count == model.outputs.count else {
                failures.append("\(name): \(inputs.count) inputs and \(expected.count) outputs for a model of \(model.inputs.count) and \(model.outputs.count)")
                continue
            }
            let actual: [String: Tensor]
            do {
                actual = try session.run(Dictionary(uniqueKeysWithValues: zip(model.inputs.map(\.name), inputs)))
            } catch {
                failures.append("\(name): \(error.message)")
                continue
            }
            for (port, want) in zip(model.outputs, expected) {
                if let got = actual[port.name], got.shape == want.shape, want.elementType == .float, got.elementType == .float {
                    for (a, e) in zip(got.floats, want.floats) where !(a.isNaN && e.isNaN) {
                        maxError = max(maxError, abs(a - e))
                        maxExpected = max(maxExpected, abs(e))
                    }
                }
                if let mismatch = compare(actual[port.name], want) { failures.append("\(name) \(port.name): \(mismatch)") }
            }
        }
        if dataSets.isEmpty { failures.append("no test_data_set_* folder in \(directory.path)") }
        return Outcome(dataSets: dataSets.count, failures: failures, maxAbsoluteError: maxError, maxExpected: maxExpected)
    }

    private func tensors(in folder: URL, prefix: String) throws(InferenceError) -> [Tensor] {
        var result: [Tensor] = []
        for index in 0... {
            let file = folder.appendingPathComponent("\(prefix)\(index).pb")
            guard let data = try? Data(contentsOf: file) else { break }
            do { result.append(try Tensor(Onnx_TensorProto(serializedBytes: data))) } catch let error as InferenceError {
                throw InferenceError(error.code, "\(file.lastPathComponent): \(error.message)")
            } catch {
                throw InferenceError(.malformedModel, "\(file.lastPathComponent) is not a TensorProto: \(error)")
            }
        }
        return result
    }

    private func compare(_ actual: Tensor?, _ expected: Tensor) -> String? {
        guard let actual else { return "missing" }
        guard actual.shape == expected.shape else { return "shape \(actual.shape), expected \(expected.shape)" }
        guard actual.elementType == expected.elementType else { return "type \(actual.elementType), expected \(expected.elementType)" }
        if expected.elementType != .float {
            return actual.integers == expected.integers ? nil : "values \(actual.integers.prefix(8)), expected \(expected.integers.prefix(8))"
        }
        let range = relativeToRange ? expected.floats.reduce(0) { max($0, abs($1)) } : 0
        for (index, (a, e)) in zip(actual.floats, expected.floats).enumerated() {
            if a.isNaN && e.isNaN { continue }
            if a == e { continue }
            let tolerance = relativeToRange ? relativeTolerance * range : absoluteTolerance + relativeTolerance * abs(e)
            if !(abs(a - e) <= tolerance) {
                return "element \(index) is \(a), expected \(e)"
            }
        }
        return nil
    }
}
