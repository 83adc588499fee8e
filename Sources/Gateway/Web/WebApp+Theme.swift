import Foundation
import Hummingbird

/// The app's colours on this device: light, dark, or as the system says. A choice of the device, not of the
/// account (a phone in dark mode and a desk in light are both right), so it lives in a cookie of its own.
extension WebApp {
    enum Theme: String, CaseIterable, Sendable {
        case system
        case light
        case dark

        static let cookieName = "plantguide_theme"

        /// The theme the request's cookie chose; `system` without one.
        init(request: Request) {
            self = .system
            for header in request.headers[values: .cookie] {
                for pair in header.split(separator: ";") {
                    let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                    if parts.count == 2, parts[0] == Self.cookieName, let theme = Theme(rawValue: parts[1]) { self = theme }
                }
            }
        }

        /// The page's `color-scheme`: what the browser's own controls and scroll bars follow.
        var colorScheme: String {
            switch self {
            case .system: "light dark"
            case .light: "light"
            case .dark: "dark"
            }
        }
    }

    /// Keeps the chosen theme for a year (a value it does not know leaves the choice as it was).
    func saveTheme(_ page: PageRequest, form: [String: String]) -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        guard let theme = form["theme"].flatMap(Theme.init(rawValue:)) else { return Self.redirect("/settings") }
        var answer = Self.redirect("/settings?done=theme")
        let secure = browser.isSecure ? "; Secure" : ""
        answer.headers[.setCookie] = "\(Theme.cookieName)=\(theme.rawValue); Path=/; Max-Age=31536000; SameSite=Lax\(secure)"
        return answer
    }
}
