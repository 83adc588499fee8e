import Foundation
import Hummingbird
import PlantGuideProtos
import PlantGuideRPCCore

/// Settings' households: share the collection with another PlantGuide user, to read or also to change, and stop.
extension WebApp {
    func share(_ page: PageRequest, form: [String: String]) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let member = (form["member_name"] ?? "").trimmingCharacters(in: .whitespaces)
        let answer = await call(Plantguide_Gateway_V1_GatewayService.shareCollection, .with {
            $0.memberName = member
            $0.access = form["access"] == "write" ? .readWrite : .readOnly
        }, token: page.token)
        switch answer {
        case .success: return Self.redirect("/settings?done=shared")
        case .failure(let error) where [.invalidArgument, .notFound, .failedPrecondition].contains(error.code):
            // No such user, the person's own name, or a name left empty: said beside the field, the name kept.
            let message = error.code == .notFound ? page.strings.format("noSuchUser", ["name": member]) : error.message
            return await settings(page, SettingsShown(status: Self.status(of: error), memberName: member, memberNameError: message))
        case .failure: return failurePage(page, answer)
        }
    }

    func stopSharing(_ page: PageRequest, form: [String: String]) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let answer = await call(Plantguide_Gateway_V1_GatewayService.revokeShare, .with { $0.memberName = form["member_name"] ?? "" },
                                token: page.token)
        guard case .success = answer else { return failurePage(page, answer) }
        return Self.redirect("/settings?done=unshared")
    }
}
