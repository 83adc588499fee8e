import PlantGuideRPC
import PlantGuideTestSupport
import Testing

@Suite("Test times sized for the machine")
struct TestTimeTests {
    @Test("slowness is at least 1, and a bound scales by it")
    func scaling() {
        #expect(TestTime.slowness >= 1)
        #expect(TestTime.scaled(.seconds(10)) == .seconds(10) * TestTime.slowness)
        #expect(RPCClientConfiguration.forTests.defaultTimeout >= .seconds(60))
    }
}
