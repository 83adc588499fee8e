import Foundation
import Hummingbird
import PlantGuideProtos
import PlantGuideRPCCore

/// Settings' signed-in devices, passkeys and calendar link: sign one device out, or every one but this; remove a
/// passkey (the page's script adds them); make the private address a calendar app subscribes to, or stop it.
extension WebApp {
    /// One session as a person recognises it: when it signed in and was last used.
    static func described(_ session: Plantguide_Gateway_V1_Session, _ strings: [String: String]) -> String {
        var text = strings.format("signedInAt", ["date": moment(session.createdAt, strings)])
        if session.hasLastUsedAt { text += " · " + strings.format("lastUsedAt", ["date": moment(session.lastUsedAt, strings)]) }
        return text
    }

    /// One passkey as a person recognises it: when it was added and last signed in.
    static func described(_ passkey: Plantguide_Gateway_V1_Passkey, _ strings: [String: String]) -> String {
        var text = strings.format("addedAt", ["date": moment(passkey.createdAt, strings)])
        if passkey.hasLastUsedAt { text += " · " + strings.format("lastUsedAt", ["date": moment(passkey.lastUsedAt, strings)]) }
        return text
    }

    func removePasskey(_ page: PageRequest, form: [String: String]) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        guard let id = form["passkey"], !id.isEmpty else { return Self.redirect("/settings") }
        let answer = await call(Plantguide_Gateway_V1_GatewayService.deletePasskey, .with { $0.passkeyID = id }, token: page.token)
        guard case .success = answer else { return failurePage(page, answer) }
        return Self.redirect("/settings?done=passkeyRemoved")
    }

    func signOutDevice(_ page: PageRequest, form: [String: String]) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        // "current" would sign this device out from a form meant for another: the nav's Sign out does that.
        guard let id = form["session"], !id.isEmpty, id != "current" else { return Self.redirect("/settings") }
        let answer = await call(Plantguide_Gateway_V1_GatewayService.deleteSession, .with { $0.sessionID = id }, token: page.token)
        guard case .success = answer else { return failurePage(page, answer) }
        return Self.redirect("/settings?done=signedOut")
    }

    func signOutOtherDevices(_ page: PageRequest) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let answer = await call(Plantguide_Gateway_V1_GatewayService.signOutOtherSessions, .init(), token: page.token)
        guard case .success(let done) = answer else { return failurePage(page, answer) }
        return Self.redirect("/settings?done=signedOutOthers&count=\(done.signedOut)")
    }

    /// A new calendar link, shown on the page this once (the gateway keeps only its hash); an earlier link stops.
    func createCalendarLink(_ page: PageRequest, origin: String) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let answer = await call(Plantguide_Gateway_V1_GatewayService.createCalendarLink, .init(), token: page.token)
        guard case .success(let link) = answer else { return failurePage(page, answer) }
        return await settings(page, SettingsShown(notice: page.strings.format("done.calendarCreated"), calendarURL: origin + link.path))
    }

    func revokeCalendarLink(_ page: PageRequest) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let answer = await call(Plantguide_Gateway_V1_GatewayService.revokeCalendarLink, .init(), token: page.token)
        guard case .success(let revoked) = answer else { return failurePage(page, answer) }
        return Self.redirect(revoked.revoked ? "/settings?done=calendarRevoked" : "/settings?done=calendarNone")
    }
}
