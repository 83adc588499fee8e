import Foundation
import PlantGuideHTTP
import Synchronization

/// Colour and progress for a person at a terminal; plain text when the output goes to a file or a pipe, when
/// NO_COLOR is set (https://no-color.org) or TERM is "dumb".
enum Terminal {
    enum Style: String {
        case bold = "1", dim = "2", red = "31", green = "32", yellow = "33"
    }

    static func isStyled(_ descriptor: Int32) -> Bool {
        let environment = ProcessInfo.processInfo.environment
        return isatty(descriptor) != 0 && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
    }

    /// `text` in `style` when standard output is styled.
    static func paint(_ text: String, _ style: Style?) -> String {
        guard let style, isStyled(STDOUT_FILENO) else { return text }
        return "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m"
    }
}

/// A one-line bar on standard error while a transfer runs ("uploading [#####-----] 48% 1.2 of 2.5 MB"), redrawn at
/// most ten times a second and cleared at the end. Only on a terminal: ``forTransfer(_:)`` is nil otherwise.
final class ProgressBar: Sendable {
    private let label: String
    private let lastDrawn = Mutex<ContinuousClock.Instant?>(nil)

    private init(label: String) {
        self.label = label
    }

    static func forTransfer(_ label: String) -> ProgressBar? {
        Terminal.isStyled(STDERR_FILENO) ? ProgressBar(label: label) : nil
    }

    /// Draws the upload while there is one to make, then the download.
    func update(_ progress: HTTPProgress) {
        let uploading = progress.uploadTotal > 0 && progress.uploaded < progress.uploadTotal
        let (done, total) = uploading ? (progress.uploaded, progress.uploadTotal) : (progress.downloaded, progress.downloadTotal)
        guard total > 0 else { return }
        let now = ContinuousClock.now
        let due = lastDrawn.withLock { last in
            guard last.map({ $0.duration(to: now) >= .milliseconds(100) }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        let fraction = min(1, Double(done) / Double(total))
        let filled = Int(fraction * 30)
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: 30 - filled)
        let megabytes = { (bytes: Int64) in String(format: "%.1f", Double(bytes) / 1_000_000) }
        let line = "\r\(label) [\(bar)] \(Int(fraction * 100))% \(megabytes(done)) of \(megabytes(total)) MB"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Clears the bar's line.
    func finish() {
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
