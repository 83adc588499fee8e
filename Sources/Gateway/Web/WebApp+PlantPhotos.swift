import Foundation
import Hummingbird
import PlantGuideProtos
import PlantGuideRPCCore

/// Adding a photo to a plant from its page: taken with the camera or chosen, then the plant's page again.
extension WebApp {
    func addPhoto(_ page: PageRequest, id: String, _ request: Request) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let strings = page.strings
        let photo: Data
        switch await Self.upload(request, limit: maxUploadBytes) {
        case .success(let upload) where upload.file != nil: photo = upload.file!
        case .failure(.tooLarge(let limit)):
            return await plant(page, id: id, status: .contentTooLarge, photoError: strings.format("photoTooLarge", ["megabytes": "\(limit >> 20)"]))
        default: return await plant(page, id: id, status: .badRequest, photoError: strings.format("choosePhoto"))
        }
        let added = await call(Plantguide_Gateway_V1_GatewayService.addPlantPhoto, .with {
            $0.plantID = id
            $0.data = photo
        }, token: page.token)
        switch added {
        case .success: return Self.redirect(Self.plantPath(id))
        case .failure(let error) where error.code == .invalidArgument:
            return await plant(page, id: id, status: .badRequest, photoError: strings.format("photoUnreadable", ["reason": error.message]))
        case .failure: return failurePage(page, added)
        }
    }

    /// `/plants/{id}`, the id percent-encoded.
    static func plantPath(_ id: String) -> String {
        "/plants/\(id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? id)"
    }
}
