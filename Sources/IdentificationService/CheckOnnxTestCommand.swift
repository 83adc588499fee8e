import ArgumentParser
import Foundation
import PlantGuideInference

/// `plantguide-identification check-onnx-test DIR`: runs one folder of ONNX's backend node tests.
struct CheckOnnxTestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-onnx-test",
        abstract: "Run one ONNX backend node test folder with PlantGuide's executor; exit 0 when it passes.",
        discussion: """
            DIR holds model.onnx and test_data_set_*/ (input_K.pb, output_K.pb), as in Debian's libonnx-testdata: \
            /usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding. Outputs are compared with ONNX's \
            tolerance (atol 1e-7, rtol 1e-3). Exit codes: 0 pass, 1 mismatch, 2 the model could not be loaded \
            (unsupported operator or malformed file). For whole networks, --relative-to-range compares each \
            output with rtol × its largest expected magnitude.
            Supported operators: \(OperatorRegistry.supported.joined(separator: ", ")).
            """)

    @Argument(help: ArgumentHelp("The node-test folder.", valueName: "dir"))
    var directory: String

    @Option(name: .long, help: "Relative tolerance.")
    var rtol: Float = 1e-3

    @Option(name: .long, help: "Absolute tolerance.")
    var atol: Float = 1e-7

    @Flag(name: .long, help: "Tolerance relative to the largest expected magnitude (whole networks).")
    var relativeToRange = false

    func run() throws {
        let url = URL(fileURLWithPath: directory)
        var test = NodeTest(directory: url)
        test.relativeTolerance = rtol
        test.absoluteTolerance = atol
        test.relativeToRange = relativeToRange
        let outcome: NodeTest.Outcome
        do { outcome = try test.run() } catch {
            print("ERROR \(url.lastPathComponent): \(error.message)")
            throw ExitCode(2)
        }
        let error = outcome.maxExpected > 0 ? outcome.maxAbsoluteError / outcome.maxExpected : outcome.maxAbsoluteError
        let summary = "\(outcome.dataSets) data set\(outcome.dataSets == 1 ? "" : "s"), max |error| \(outcome.maxAbsoluteError), \(error) of the output range"
        if outcome.passed {
            print("PASS \(url.lastPathComponent) (\(summary))")
            return
        }
        print("FAIL \(url.lastPathComponent) (\(summary))")
        for failure in outcome.failures.prefix(20) { print("  \(failure)") }
        throw ExitCode(1)
    }
}
