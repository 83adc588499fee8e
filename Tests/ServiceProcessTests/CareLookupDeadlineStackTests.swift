import Foundation
import PlantGuideTestSupport
import Testing

/// A cold lookup through the gateway with a provider hanging answers within 5 s, from the others. Timed, so
/// Scripts/test runs this suite alone, after the others.
@Suite("Care data lookups on time through the gateway", .serialized, .wholeStack, .cleansUp)
struct CareLookupDeadlineStackTests {
    @Test("Open Plantbook hanging: a cold lookup through the gateway answers within 5 s, naming it")
    func hangingProvider() async throws {
        let fakes = try FakeCareProviders()
        let stack = try await GatewayJourneyTests.Stack(.sqlite, serviceExtra: [
            "PLANTGUIDE_OPENPLANTBOOK_URL": fakes.openPlantbook.baseURL.absoluteString, "PLANTGUIDE_OPENPLANTBOOK_CLIENT_ID": "test-client",
            "PLANTGUIDE_OPENPLANTBOOK_CLIENT_SECRET": "test-secret",
            "PLANTGUIDE_PERENUAL_URL": fakes.perenual.baseURL.absoluteString, "PLANTGUIDE_PERENUAL_KEY": "test-key",
            "PLANTGUIDE_GBIF_URL": "off",
        ])
        let token = try await stack.token(for: "ana")
        try await stack.waitForHTTP()
        fakes.inject(.openPlantbook, [.hang, .hang])

        let start = ContinuousClock.now
        let care = try await CareProvidersStackTests.care("Acer rubrum", from: stack, token: token)
        let waited = start.duration(to: .now)

        // The default lookup budget is 4 s.
        #expect(waited < TestTime.scaled(.seconds(5)), "answered after \(waited)")
        #expect((care["notes"] as? [String])?.contains { $0.hasPrefix("Open Plantbook did not answer in time") } == true, "\(care)")
        #expect((care["fieldSources"] as? [String: String])?["temperature"] == "CARE_SOURCE_DEFAULT")
        #expect(fakes.perenual.requests.map(\.path) == ["/api/v2/species-list"], "Perenual was asked at once, beside it")
        await stack.stop()
        fakes.stop()
    }
}
