@testable import PlantGuideRPC
import Testing

@Suite("RoutingFrames")
struct RoutingFramesTests {
    /// The frames as `forEach` hands them out.
    private func frames(of routing: RoutingFrames) -> [[UInt8]] {
        var frames: [[UInt8]] = []
        routing.forEach { frames.append(Array($0)); return true }
        return frames
    }

    private func routing(_ frames: [[UInt8]]) -> RoutingFrames {
        var routing = RoutingFrames()
        for frame in frames { frame.withUnsafeBytes { routing.append($0) } }
        return routing
    }

    @Test("gives back the frames it was given, in order, whatever their number and size", arguments: [
        [],
        [[0, 0x80, 0, 0, 0x29]],  // libzmq's own 5-byte id
        [Array(0..<16)],  // the most kept inline
        [Array(0..<17)],  // one byte more
        [[]],
        [[0, 1, 2, 3, 4], []],  // an id and REQ's empty delimiter
        [Array(0..<16), Array(100..<140), [7]],
    ] as [[[UInt8]]])
    func roundTrip(_ given: [[UInt8]]) {
        let routing = routing(given)

        #expect(frames(of: routing) == given)
        #expect(routing.count == given.count)
        #expect(routing.isEmpty == given.isEmpty)
        #expect(routing.first == given.first)
    }

    @Test("stops at the first frame its visitor refuses, and says so")
    func stopsEarly() {
        let routing = routing([[1], [2], [3]])
        var seen: [[UInt8]] = []

        let finished = routing.forEach { frame in
            seen.append(Array(frame))
            return frame.first != 2
        }

        #expect(!finished)
        #expect(seen == [[1], [2]])
    }
}
