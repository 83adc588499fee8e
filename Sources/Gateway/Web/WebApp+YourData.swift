import Foundation
import Hummingbird
import PlantGuideProtos
import PlantGuideRPCCore

/// Settings' "your data": download the whole collection as an archive, bring one back (from this server or
/// another), and delete everything, after a confirmation.
extension WebApp {
    /// The collection's archive (tar: manifest.json and the photos), as a file to save.
    func export(_ page: PageRequest) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let answer = await call(Plantguide_Gateway_V1_GatewayService.exportCollection, .init(), token: page.token)
        guard case .success(let exported) = answer else { return failurePage(page, answer) }
        let day = String(ISO8601DateFormatter().string(from: exported.export.exportedAt.date).prefix(10))
        return Response(status: .ok, headers: [
            .contentType: "application/x-tar", .contentDisposition: "attachment; filename=\"plantguide-\(day).tar\"",
            .cacheControl: "no-store", .xContentTypeOptions: "nosniff",
        ], body: .init(byteBuffer: ByteBuffer(bytes: exported.export.archive)))
    }

    /// Brings back an archive that ``export(_:)`` gave: plants already there are left as they are.
    func importArchive(_ page: PageRequest, _ request: Request) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let strings = page.strings
        let archive: Data
        switch await Self.upload(request, limit: maxUploadBytes, file: "archive") {
        case .success(let upload) where upload.file != nil: archive = upload.file!
        case .failure(.tooLarge(let limit)):
            return await settings(page, SettingsShown(status: .contentTooLarge,
                                                      archiveError: strings.format("archiveTooLarge", ["megabytes": "\(limit >> 20)"])))
        default: return await settings(page, SettingsShown(status: .badRequest, archiveError: strings.format("chooseArchive")))
        }
        let answer = await call(Plantguide_Gateway_V1_GatewayService.importCollection, .with { $0.archive = archive }, token: page.token)
        switch answer {
        case .success(let imported):
            return Self.redirect("/settings?done=imported&plants=\(imported.imported.plantsImported)&photos=\(imported.imported.photosImported)"
                + "&unchanged=\(imported.imported.plantsUnchanged)")
        case .failure(let error) where error.code == .invalidArgument:
            return await settings(page, SettingsShown(status: .badRequest, archiveError: strings.format("archiveUnreadable", ["reason": error.message])))
        case .failure: return failurePage(page, answer)
        }
    }

    func confirmDeleteAll(_ page: PageRequest) -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let strings = page.strings
        return render("delete", page, ["title": strings.format("deleteAllData"), "heading": strings.format("deleteAllData"), "onSettings": true,
                                       "question": strings.format("deleteAllQuestion"), "action": "/settings/delete-all", "back": "/settings"])
    }

    /// Deletes every plant, photo and task of the person (the account and its settings stay).
    func deleteAll(_ page: PageRequest) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let answer = await call(Plantguide_Gateway_V1_GatewayService.deleteAllData, .init(), token: page.token)
        guard case .success(let deleted) = answer else { return failurePage(page, answer) }
        return Self.redirect("/settings?done=deletedAll&plants=\(deleted.plantsDeleted)&photos=\(deleted.photosRemoved)&tasks=\(deleted.tasksDeleted)")
    }
}
