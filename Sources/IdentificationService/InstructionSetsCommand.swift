import ArgumentParser
import PlantGuideInference

/// `plantguide-identification instruction-sets`: which kernel paths this CPU runs and which one serving would use.
struct InstructionSetsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "instruction-sets",
        abstract: "List the executor's kernel paths this CPU runs, marking the one in use.",
        discussion: """
            The on-device model runs on the best path the CPU has: avx512 (AVX-512 F, BW, CD, DQ and VL), avx2 \
            (AVX2 and FMA) or portable. PLANTGUIDE_INFERENCE_ISA=avx2 (or portable) forces a lower one, to test or \
            measure it; a value the CPU cannot run is an error. --names prints only the names, one per line, lowest \
            first (what Scripts/test and Scripts/bench loop over).
            """)

    @Flag(name: .long, help: "Only the names of the paths this CPU runs, one per line.")
    var names = false

    func run() throws {
        let current: InferenceISA
        do { current = try InferenceISA.configured() } catch {
            print("error: \(error.message)")
            throw ExitCode(2)
        }
        for isa in InferenceISA.supported {
            if names {
                print(isa)
            } else {
                print("\(isa == current ? "*" : " ") \(isa)\(isa == InferenceISA.cpu ? "  (the CPU's best)" : "")")
            }
        }
    }
}
