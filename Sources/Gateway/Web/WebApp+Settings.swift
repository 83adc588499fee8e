import Foundation
import Hummingbird
import PlantGuideProtos
import PlantGuideRPC

/// Settings: when reminders come and of which care.
extension WebApp {
    /// The care types a person can be reminded of, in the order the settings list them, with their catalog keys.
    private static let careTypes: [(type: Plantguide_Scheduling_V1_TaskType, key: String)] = [
        (.watering, "watering"), (.fertilizing, "fertilizing"), (.pruning, "pruning"), (.repotting, "repotting"),
        (.pestControl, "pestControl"), (.rotation, "rotation"), (.harvest, "harvest"),
    ]
    /// Scheduling's defaults for a type the person never set (see Preferences.task_types).
    private static let onByDefault: Set<Plantguide_Scheduling_V1_TaskType> = [.watering, .fertilizing, .harvest]

    func settings(_ page: PageRequest, saved: Bool, status: HTTPResponse.Status = .ok, error: RPCError? = nil,
                          shown: Plantguide_Scheduling_V1_Preferences? = nil) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        var preferences = shown
        if preferences == nil {
            let read = await call(Plantguide_Gateway_V1_GatewayService.getSettings, .init(), token: page.token)
            guard case .success(let answer) = read else { return failurePage(page, read) }
            preferences = answer.settings
        }
        let current = preferences ?? .init()
        let chosen = Dictionary(current.taskTypes.map { ($0.type, $0.enabled) }) { _, last in last }
        let types: [[String: Any]] = Self.careTypes.map { care in
            ["key": care.key, "label": page.strings.format("type.\(care.key)"), "on": chosen[care.type] ?? Self.onByDefault.contains(care.type)]
        }
        var values: [String: Any] = [
            "title": page.strings.format("settings"), "onSettings": true, "saved": saved, "types": types,
            "notifyTime": current.notifyTime.isEmpty ? "08:00" : current.notifyTime, "timeZone": current.timeZone.isEmpty ? "UTC" : current.timeZone,
        ]
        let fields = Self.fieldErrors(error)
        if let message = fields["notify_time"] { values["notifyTimeError"] = message }
        if let message = fields["time_zone"] { values["timeZoneError"] = message }
        if let error, fields["notify_time"] == nil, fields["time_zone"] == nil { values["error"] = error.message }
        return render("settings", page, status: status, values)
    }

    func saveSettings(_ page: PageRequest, form: [(String, String)]) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let checked = Set(form.filter { $0.0 == "type" }.map(\.1))
        let first = Dictionary(form) { first, _ in first }
        let preferences = Plantguide_Scheduling_V1_Preferences.with { preferences in
            preferences.notifyTime = first["notify_time"] ?? ""
            preferences.timeZone = (first["time_zone"] ?? "").trimmingCharacters(in: .whitespaces)
            preferences.taskTypes = Self.careTypes.map { care in .with { $0.type = care.type; $0.enabled = checked.contains(care.key) } }
        }
        let saved = await call(Plantguide_Gateway_V1_GatewayService.putSettings, .with {
            $0.settings = preferences
            $0.updateMask.paths = ["notify_time", "time_zone", "task_types"]
        }, token: page.token)
        switch saved {
        case .success: return Self.redirect("/settings?saved=1")
        case .failure(let error) where error.code == .invalidArgument:
            return await settings(page, saved: false, status: .badRequest, error: error, shown: preferences)
        case .failure: return failurePage(page, saved)
        }
    }
}
