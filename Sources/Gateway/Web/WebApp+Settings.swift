import Foundation
import Hummingbird
import PlantGuideProtos
import PlantGuideRPCCore
import SwiftProtobuf

/// Settings: when reminders come and of which care, the theme, the calendar link, households, signed-in devices and
/// the person's data. This file renders the page and saves the reminders; each other section's changes are in a file
/// of its own (`WebApp+Devices.swift`, `WebApp+Households.swift`, `WebApp+YourData.swift`).
extension WebApp {
    /// Settings and what each of its sections changes: reminders, theme, calendar, households, devices and
    /// passkeys, and all the person's data.
    func settingsRoutes() -> RouteCollection<GatewayRequestContext> {
        let routes = WebScreenRoutes(self)
        routes.page("/settings", get: { request, _, page in
            let query = Dictionary(request.uri.queryParameters.map { (String($0.key), String($0.value)) }) { first, _ in first }
            return await settings(page, SettingsShown(notice: Self.settingsNotice(query, page.strings)))
        }, post: { request, _, page in await saveSettings(page, form: await Self.formFields(request)) })
        routes.page("/settings/theme", post: { request, _, page in saveTheme(page, form: await Self.form(request)) })
        routes.page("/settings/calendar", post: { request, _, page in await createCalendarLink(page, origin: browser.origin(of: request)) })
        routes.page("/settings/calendar/revoke", post: { _, _, page in await revokeCalendarLink(page) })
        routes.page("/settings/shares", post: { request, _, page in await share(page, form: await Self.form(request)) })
        routes.page("/settings/shares/revoke", post: { request, _, page in await stopSharing(page, form: await Self.form(request)) })
        routes.page("/settings/sessions/signout", post: { request, _, page in await signOutDevice(page, form: await Self.form(request)) })
        routes.page("/settings/sessions/others", post: { _, _, page in await signOutOtherDevices(page) })
        routes.page("/settings/passkeys/delete", post: { request, _, page in await removePasskey(page, form: await Self.form(request)) })
        routes.page("/settings/export", get: { _, _, page in await export(page) })
        routes.page("/settings/import", post: { request, _, page in await importArchive(page, request) })
        routes.page("/settings/delete-all", get: { _, _, page in confirmDeleteAll(page) }, post: { _, _, page in await deleteAll(page) })
        return routes.collection
    }

    /// The care types a person can be reminded of, in the order the settings list them, with their catalog keys.
    private static let careTypes: [(type: Plantguide_Scheduling_V1_TaskType, key: String)] = [
        (.watering, "watering"), (.fertilizing, "fertilizing"), (.pruning, "pruning"), (.repotting, "repotting"),
        (.pestControl, "pestControl"), (.rotation, "rotation"), (.harvest, "harvest"),
    ]
    /// Scheduling's defaults for a type the person never set (see Preferences.task_types).
    private static let onByDefault: Set<Plantguide_Scheduling_V1_TaskType> = [.watering, .fertilizing, .harvest]

    /// What the Settings page shows besides the stored settings: the outcome of the last change and what a refused
    /// form held.
    struct SettingsShown {
        var status: HTTPResponse.Status = .ok
        /// What the last change did ("Saved.", "Signed out 2 devices.").
        var notice: String?
        /// A refused reminders form: its error and what it held.
        var preferencesError: RPCError?
        var preferences: Plantguide_Scheduling_V1_Preferences?
        /// A new calendar link, shown only once.
        var calendarURL: String?
        /// A refused share: the name typed and why.
        var memberName = ""
        var memberNameError: String?
        /// A refused import, said beside the file field.
        var archiveError: String?
    }

    /// The notices a redirect back to Settings may name (`/settings?done=KEY&COUNT=N`), each a catalog key
    /// `done.KEY` whose `{COUNT}` placeholders take the query's numbers.
    static let settingsNotices: Set<String> = ["saved", "theme", "signedOut", "signedOutOthers", "shared", "unshared", "calendarRevoked",
                                               "calendarNone", "imported", "deletedAll", "passkeyAdded", "passkeyRemoved"]

    /// The notice `/settings?done=…` names, with the query's numbers (only digits) in it; nil for any other.
    static func settingsNotice(_ query: [String: String], _ strings: [String: String]) -> String? {
        guard let key = query["done"], settingsNotices.contains(key) else { return nil }
        let numbers = query.filter { $0.key != "done" && !$0.value.isEmpty && $0.value.allSatisfy(\.isASCII) && $0.value.allSatisfy(\.isNumber) }
        return strings.format("done.\(key)", numbers)
    }

    func settings(_ page: PageRequest, _ shown: SettingsShown = SettingsShown()) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        async let stored = call(Plantguide_Gateway_V1_GatewayService.getSettings, .init(), token: page.token)
        async let devices = call(Plantguide_Gateway_V1_GatewayService.listSessions, .init(), token: page.token)
        async let households = call(Plantguide_Gateway_V1_GatewayService.listShares, .init(), token: page.token)
        async let keys = call(Plantguide_Gateway_V1_GatewayService.listPasskeys, .init(), token: page.token)
        let read = await stored, sessions = await devices, shares = await households, passkeys = await keys
        guard case .success(let settingsAnswer) = read else { return failurePage(page, read) }
        guard case .success(let passkeyList) = passkeys else { return failurePage(page, passkeys) }
        guard case .success(let sessionList) = sessions else { return failurePage(page, sessions) }
        guard case .success(let shareList) = shares else { return failurePage(page, shares) }

        let strings = page.strings
        let current = shown.preferences ?? settingsAnswer.settings
        let chosen = Dictionary(current.taskTypes.map { ($0.type, $0.enabled) }) { _, last in last }
        let types: [[String: Any]] = Self.careTypes.map { care in
            ["key": care.key, "label": strings.format("type.\(care.key)"), "on": chosen[care.type] ?? Self.onByDefault.contains(care.type)]
        }
        var values: [String: Any] = [
            "title": strings.format("settings"), "onSettings": true, "types": types,
            "notifyTime": current.notifyTime.isEmpty ? "08:00" : current.notifyTime, "timeZone": current.timeZone.isEmpty ? "UTC" : current.timeZone,
            "themes": Theme.allCases.map { ["value": $0.rawValue, "label": strings.format("theme.\($0.rawValue)"), "chosen": $0 == page.theme] },
            "unitChoices": Units.allCases.map { ["value": $0.rawValue, "label": strings.format("units.\($0.rawValue)"), "chosen": $0 == page.units] },
            "remindDaysBefore": "\(current.remindDaysBefore)", "seasonal": current.seasonalAdjustment,
            "southern": current.hasLocation && current.location.latitude < 0,
            "sessions": sessionList.sessions.map { session in
                ["id": session.id, "current": session.current, "described": Self.described(session, strings)] as [String: Any]
            },
            "hasOthers": sessionList.sessions.contains { !$0.current },
            "given": shareList.given.map { ["member": $0.memberName, "access": Self.accessLabel($0.access, strings)] },
            "hasGiven": !shareList.given.isEmpty,
            "received": shareList.received.map { ["owner": $0.ownerName, "access": Self.accessLabel($0.access, strings)] },
            "hasReceived": !shareList.received.isEmpty,
            "memberName": shown.memberName,
            "passkeys": passkeyList.passkeys.map { ["id": $0.id, "name": $0.name, "described": Self.described($0, strings)] },
            "hasPasskeys": !passkeyList.passkeys.isEmpty,
        ]
        let fields = Self.fieldErrors(shown.preferencesError)
        if let message = fields["notify_time"] { values["notifyTimeError"] = message }
        if let message = fields["time_zone"] { values["timeZoneError"] = message }
        if let message = fields["remind_days_before"] { values["remindDaysBeforeError"] = message }
        if let error = shown.preferencesError, fields["notify_time"] == nil, fields["time_zone"] == nil, fields["remind_days_before"] == nil {
            values["error"] = error.message
        }
        values["notice"] = shown.notice
        values["calendarURL"] = shown.calendarURL
        values["memberNameError"] = shown.memberNameError
        values["archiveError"] = shown.archiveError
        return render("settings", page, status: shown.status, values)
    }

    func saveSettings(_ page: PageRequest, form: [(String, String)]) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let checked = Set(form.filter { $0.0 == "type" }.map(\.1))
        let first = Dictionary(form) { first, _ in first }
        let daysText = (first["remind_days_before"] ?? "0").trimmingCharacters(in: .whitespaces)
        guard let days = UInt32(daysText.isEmpty ? "0" : daysText) else {
            let error = RPCError.invalidArgument("remind_days_before", .outOfRange, page.strings.format("remindDaysBefore") + ": 0–14")
            return await settings(page, SettingsShown(status: .badRequest, preferencesError: error))
        }
        var preferences = Plantguide_Scheduling_V1_Preferences.with { preferences in
            preferences.notifyTime = first["notify_time"] ?? ""
            preferences.timeZone = (first["time_zone"] ?? "").trimmingCharacters(in: .whitespaces)
            preferences.remindDaysBefore = days
            preferences.seasonalAdjustment = first["seasonal_adjustment"] == "on"
            preferences.taskTypes = Self.careTypes.map { care in .with { $0.type = care.type; $0.enabled = checked.contains(care.key) } }
        }
        var mask = ["notify_time", "time_zone", "task_types", "remind_days_before", "seasonal_adjustment"]
        // The hemisphere is the sign of the plants' latitude. A location the person gave elsewhere (the API) is kept
        // while its hemisphere is the one chosen; a change of hemisphere stores a latitude in the middle of it.
        let southern = first["hemisphere"] == "south"
        let stored = await call(Plantguide_Gateway_V1_GatewayService.getSettings, .init(), token: page.token)
        let known = (try? stored.get())?.settings
        if (known.map { $0.hasLocation && $0.location.latitude < 0 } ?? false) != southern {
            preferences.location = .with { $0.latitude = southern ? -45 : 45 }
            mask.append("location")
        } else if let known, known.hasLocation {
            preferences.location = known.location  // unchanged (not in the mask); shown again if the form is refused
        }
        let saved = await call(Plantguide_Gateway_V1_GatewayService.putSettings, .with {
            $0.settings = preferences
            $0.updateMask.paths = mask
        }, token: page.token)
        switch saved {
        case .success: return Self.redirect("/settings?done=saved")
        case .failure(let error) where error.code == .invalidArgument:
            return await settings(page, SettingsShown(status: .badRequest, preferencesError: error, preferences: preferences))
        case .failure: return failurePage(page, saved)
        }
    }

    /// "Read only" or "Can edit".
    static func accessLabel(_ access: Plantguide_Gateway_V1_ShareAccess, _ strings: [String: String]) -> String {
        strings.format(access == .readWrite ? "accessWrite" : "accessRead")
    }

    /// A date and time as the reader's language writes it, in UTC ("27 Nov 2026, 20:41").
    static func moment(_ timestamp: Google_Protobuf_Timestamp, _ strings: [String: String]) -> String {
        let style = Date.FormatStyle(date: .abbreviated, time: .shortened, locale: Locale(identifier: strings["language"] ?? "en"),
                                     timeZone: TimeZone(identifier: "UTC")!)
        return timestamp.date.formatted(style) + " UTC"
    }
}
