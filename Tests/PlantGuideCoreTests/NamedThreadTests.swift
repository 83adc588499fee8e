import Foundation
import PlantGuideTestSupport
import PlantGuideThreads
import Synchronization
import Testing

@Suite("Threads named for the OS")
struct NamedThreadTests {
    /// Foundation's own `Thread.current.name` lost the race to the OS a few times in a hundred threads here, which
    /// made the I/O thread's name flaky; 300 threads started at once would show that again.
    @Test("every thread started with a name runs under it from its first instruction")
    func everyThreadCarriesItsName() async {
        let seen = Mutex<[String]>([])
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let remaining = Mutex(300)
            for index in 0..<300 {
                Thread(named: "named-\(index % 10)") {
                    let name = currentThreadName()
                    seen.withLock { $0.append(name) }
                    if remaining.withLock({ $0 -= 1; return $0 }) == 0 { continuation.resume() }
                }.start()
            }
        }
        let names = seen.withLock { $0 }
        #expect(names.count == 300)
        #expect(names.filter { !$0.hasPrefix("named-") } == [])
    }

    @Test("a name longer than the OS keeps is cut to its first 15 bytes, not refused")
    func longNamesAreCut() async {
        let name = await withCheckedContinuation { continuation in
            Thread(named: "plantguide-identification") { continuation.resume(returning: currentThreadName()) }.start()
        }
        #expect(name == "plantguide-iden")
    }
}
