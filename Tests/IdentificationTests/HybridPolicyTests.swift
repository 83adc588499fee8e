@testable import Identification
import Testing

@Suite("Hybrid policy")
struct HybridPolicyTests {
    @Test("first steps", arguments: [
        (HybridPolicy.Method.hybrid, true, true, false, HybridPolicy.Step.runModel),
        (.hybrid, false, true, false, .askPlantNet(reason: "no on-device model is installed")),
        (.hybrid, false, false, false, .refuse("no on-device model is installed and Pl@ntNet is not configured")),
        (.onDevice, true, true, false, .runModel),
        (.onDevice, false, true, false, .refuse("no on-device model is installed")),
        (.plantnet, true, true, false, .askPlantNet(reason: "Pl@ntNet asked for")),
        (.plantnet, true, false, false, .refuse("Pl@ntNet is not configured (PLANTGUIDE_PLANTNET_KEY)")),
        (.plantnet, true, true, true, .runModel),
        (.hybrid, false, true, true, .refuse("no on-device model is installed")),
    ] as [(HybridPolicy.Method, Bool, Bool, Bool, HybridPolicy.Step)])
    func start(method: HybridPolicy.Method, model: Bool, plantnet: Bool, offline: Bool, step: HybridPolicy.Step) {
        #expect(HybridPolicy.start(method, modelInstalled: model, plantnetConfigured: plantnet, offline: offline) == step)
    }

    @Test("after the model: the API only for an unsure hybrid answer, online, with a key")
    func afterModel() {
        #expect(HybridPolicy.afterModel(.hybrid, best: 0.42, minimumConfidence: 0.7, plantnetConfigured: true, offline: false)
                == .askPlantNet(reason: "on-device confidence 0.42 < 0.70"))
        #expect(HybridPolicy.afterModel(.hybrid, best: 0.91, minimumConfidence: 0.7, plantnetConfigured: true, offline: false)
                == .answer(note: "on-device confidence 0.91 ≥ 0.70"))
        #expect(HybridPolicy.afterModel(.hybrid, best: 0.42, minimumConfidence: 0.7, plantnetConfigured: false, offline: false)
                == .answer(note: "on-device confidence 0.42 < 0.70; Pl@ntNet is not configured"))
        #expect(HybridPolicy.afterModel(.hybrid, best: 0.1, minimumConfidence: 0.7, plantnetConfigured: true, offline: true)
                == .answer(note: "on-device only"))
        #expect(HybridPolicy.afterModel(.onDevice, best: 0.1, minimumConfidence: 0.7, plantnetConfigured: true, offline: false)
                == .answer(note: "on-device only"))
    }

    @Test("an experimental model's answer never counts as confident")
    func experimentalModel() {
        #expect(HybridPolicy.afterModel(.hybrid, best: 0.99, minimumConfidence: 0.7, experimental: true, plantnetConfigured: true, offline: false)
                == .askPlantNet(reason: "the on-device model is experimental"))
        #expect(HybridPolicy.afterModel(.hybrid, best: 0.99, minimumConfidence: 0.7, experimental: true, plantnetConfigured: false, offline: false)
                == .answer(note: "the on-device model is experimental; Pl@ntNet is not configured"))
        #expect(HybridPolicy.afterModel(.hybrid, best: 0.99, minimumConfidence: 0.7, experimental: true, plantnetConfigured: true, offline: true)
                == .answer(note: "on-device only (experimental model)"))
    }

    @Test("merging keeps Pl@ntNet's order, adds the model's others, labels sources and limits")
    func merge() {
        let api = [SpeciesGuess(scientificName: "Monstera deliciosa", score: 0.8, source: .plantnet)]
        let model = [SpeciesGuess(scientificName: "monstera deliciosa", score: 0.5, source: .onDevice),
                     SpeciesGuess(scientificName: "Epipremnum aureum", score: 0.3, source: .onDevice),
                     SpeciesGuess(scientificName: "Ficus lyrata", score: 0.1, source: .onDevice)]

        let merged = HybridPolicy.merge(plantnet: api, onDevice: model, limit: 2)

        #expect(merged.map(\.scientificName) == ["Monstera deliciosa", "Epipremnum aureum"])
        #expect(merged.map(\.source) == [.plantnet, .onDevice])
    }
}

@Suite("Combining the model's answers for several photos")
struct CombineTests {
    @Test("scores are averaged over the photos, a species missing from one photo counting zero there")
    func average() {
        let first = [SpeciesGuess(scientificName: "A", score: 0.9, source: .onDevice), SpeciesGuess(scientificName: "B", score: 0.3, source: .onDevice)]
        let second = [SpeciesGuess(scientificName: "B", score: 0.9, source: .onDevice)]

        let combined = Identifier.combine([first, second], limit: 5)

        #expect(combined.map(\.scientificName) == ["B", "A"])
        #expect(abs(combined[0].score - 0.6) < 1e-9)  // (0.3 + 0.9) / 2
        #expect(abs(combined[1].score - 0.45) < 1e-9)  // (0.9 + 0) / 2
        #expect(Identifier.combine([first, second], limit: 1).count == 1)
    }
}
