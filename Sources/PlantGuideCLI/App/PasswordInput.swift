import Foundation

/// A password for `plantguide signup` and `plantguide login --name`: from PLANTGUIDE_PASSWORD when set (for
/// scripts), else typed at the terminal without echo, else the first line of standard input (a pipe). Blocking:
/// call it through BlockingWork.
enum PasswordInput {
    static func read(prompt: String) -> String? {
        if let password = ProcessInfo.processInfo.environment["PLANTGUIDE_PASSWORD"], !password.isEmpty { return password }
        guard isatty(STDIN_FILENO) == 1 else { return readLine(strippingNewline: true) }
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        tcgetattr(STDIN_FILENO, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true)
    }
}
