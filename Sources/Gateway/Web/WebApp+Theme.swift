import Foundation
import Hummingbird

/// The app's colours and units on this device: light, dark, or as the system says; degrees Celsius or Fahrenheit.
/// Choices of the device, not of the account (a phone in dark mode and a desk in light are both right; a person
/// reads the units of the country they are in), so each lives in a cookie of its own.
extension WebApp {
    enum Theme: String, CaseIterable, Sendable {
        case system
        case light
        case dark

        static let cookieName = "plantguide_theme"

        /// The theme the request's cookie chose; `system` without one.
        init(request: Request) {
            self = BrowserSession.cookie(in: request) { $0 == Self.cookieName }.flatMap(Theme.init(rawValue:)) ?? .system
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

    enum Units: String, CaseIterable, Sendable {
        /// Degrees Celsius.
        case metric
        /// Degrees Fahrenheit.
        case imperial

        static let cookieName = "plantguide_units"

        /// The units the request's cookie chose; metric without one.
        init(request: Request) {
            self = BrowserSession.cookie(in: request) { $0 == Self.cookieName }.flatMap(Units.init(rawValue:)) ?? .metric
        }
    }

    /// Keeps the chosen theme and units for a year (a value it does not know leaves that choice as it was).
    func saveTheme(_ page: PageRequest, form: [String: String]) -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let secure = browser.isSecure ? "; Secure" : ""
        var cookies: [String] = []
        if let theme = form["theme"].flatMap(Theme.init(rawValue:)) {
            cookies.append("\(Theme.cookieName)=\(theme.rawValue); Path=/; Max-Age=31536000; SameSite=Lax\(secure)")
        }
        if let units = form["units"].flatMap(Units.init(rawValue:)) {
            cookies.append("\(Units.cookieName)=\(units.rawValue); Path=/; Max-Age=31536000; SameSite=Lax\(secure)")
        }
        guard !cookies.isEmpty else { return Self.redirect("/settings") }
        var answer = Self.redirect("/settings?done=theme")
        for cookie in cookies { answer.headers.append(HTTPFields.Element(name: .setCookie, value: cookie)) }
        return answer
    }
}
