@testable import CareData
import Foundation
import Testing

@Suite("Trefle's reachability as the status reports it")
struct TrefleReachabilityTests {
    @Test("without a token it is NOT_CONFIGURED, whatever happens")
    func notConfigured() {
        let recorder = ProviderReachabilityRecorder(configured: false)
        recorder.failed(TrefleError(.notConfigured, "no token"))
        #expect(recorder.current.state == .notConfigured && recorder.current.lastError.isEmpty)
    }

    @Test("each outcome sets the state; a 404 is an answer; the last failure is kept after a success")
    func outcomes() {
        let recorder = ProviderReachabilityRecorder(configured: true)
        #expect(recorder.current.state == .unknown)
        let cases: [(TrefleError.Code, TrefleReachability.State)] = [
            (.rateLimited, .rateLimited), (.unauthorized, .unauthorized), (.timedOut, .unreachable),
            (.unavailable, .unreachable), (.badResponse, .unreachable), (.notFound, .reachable),
        ]
        for (code, state) in cases {
            recorder.failed(TrefleError(code, "\(code)"))
            #expect(recorder.current.state == state, "\(code)")
        }
        #expect(recorder.current.lastError == "badResponse" && recorder.current.lastSuccessAt != nil)
        recorder.answered()
        #expect(recorder.current.state == .reachable && recorder.current.lastFailureAt != nil)
    }
}
