import Foundation
import Synchronization

/// Watches Swift's global executor while the tests run, and says when no job could start on it for a while: some
/// code blocked its threads (there are as many as cores, 2 here), which stalls every test in the process and fails
/// the ones that time something. A line "executor stalled" on standard error gives the stall's length; with
/// `PLANTGUIDE_STALL_DUMP=FOLDER` set, gdb also writes every thread's stack there at the stall, which names the
/// blocking code.
public enum ExecutorStallWatch {
    /// How long the executor may go without starting a job before that counts as a stall.
    static let threshold: Duration = .seconds(2)

    /// When the last probe job ran, in nanoseconds of the monotonic clock.
    private static let lastBeat = Atomic<UInt64>(0)

    private static let started: Void = {
        lastBeat.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        let thread = Thread { watch() }
        thread.name = "stall-watch"
        thread.start()
    }()

    /// Starts the watch once per process; later calls do nothing.
    public static func start() { _ = started }

    private static func watch() {
        let thresholdNanos = UInt64(threshold.components.seconds) * 1_000_000_000
        var stallStart: UInt64?
        var dumped = false
        while true {
            Thread.sleep(forTimeInterval: 0.1)
            Task.detached { lastBeat.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed) }
            let now = DispatchTime.now().uptimeNanoseconds
            let beat = lastBeat.load(ordering: .relaxed)
            let age = now > beat ? now - beat : 0
            if age > thresholdNanos {
                if stallStart == nil { stallStart = beat }
                if !dumped, let folder = ProcessInfo.processInfo.environment["PLANTGUIDE_STALL_DUMP"] {
                    dumped = true
                    dumpStacks(into: folder)
                }
            } else if let start = stallStart {
                let seconds = Double(beat - start) / 1e9
                FileHandle.standardError.write(Data("executor stalled \(String(format: "%.1f", seconds)) s\n".utf8))
                stallStart = nil
                dumped = false
            }
        }
    }

    /// Writes every thread's stack, as gdb sees them, to a new file in `folder`.
    private static func dumpStacks(into folder: String) {
        let pid = ProcessInfo.processInfo.processIdentifier
        let file = "\(folder)/stall-\(pid)-\(Int(Date().timeIntervalSince1970)).txt"
        FileManager.default.createFile(atPath: file, contents: nil)
        guard let output = FileHandle(forWritingAtPath: file) else { return }
        let gdb = Process()
        gdb.executableURL = URL(fileURLWithPath: "/usr/bin/gdb")
        gdb.arguments = ["-p", "\(pid)", "-batch", "-nx", "-ex", "thread apply all bt 40"]
        gdb.standardOutput = output
        gdb.standardError = output
        do {
            try gdb.run()
            gdb.waitUntilExit()  // on the watch's own thread, never the executor's
        } catch {
            output.write(Data("gdb did not start: \(error)\n".utf8))
        }
        try? output.close()
    }
}
