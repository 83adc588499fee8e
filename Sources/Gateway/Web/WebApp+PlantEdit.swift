import Foundation
import Hummingbird
import PlantGuideProtos
import PlantGuideRPCCore

/// Editing a plant: its own name, where it stands, notes and whether it is a favourite.
extension WebApp {
    /// The form, filled with the plant as stored, or with what the person sent (`shown`) beside the collection's
    /// reasons for refusing it.
    func editPlant(_ page: PageRequest, id: String, status: HTTPResponse.Status = .ok, error: RPCError? = nil,
                   shown: Plantguide_Collection_V1_Plant? = nil) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let read = await call(Plantguide_Gateway_V1_GatewayService.getPlantDetails, .with { $0.plantID = id }, token: page.token)
        guard case .success(let details) = read else { return failurePage(page, read) }
        let stored = details.plant
        let plant = shown ?? stored
        var values: [String: Any] = [
            "title": page.strings.format("editTitle", ["name": Self.displayName(stored)]), "onPlants": true, "id": stored.id,
            "scientificName": stored.scientificName, "customName": plant.customName, "location": plant.location, "notes": plant.notes,
            "favorite": plant.favorite, "speciesName": stored.commonNames.first ?? stored.scientificName,
        ]
        let fields = Self.fieldErrors(error)
        for (field, key) in [("custom_name", "customNameError"), ("location", "locationError"), ("notes", "notesError")] {
            if let message = fields[field] { values[key] = message }
        }
        if let error, !["custom_name", "location", "notes"].contains(where: { fields[$0] != nil }) { values["error"] = error.message }
        return render("plant-edit", page, status: status, values)
    }

    /// Saves the form: the fields in one UpdatePlant, the favourite mark with SetFavorite when it changed; then the
    /// plant's page. A refused field is shown beside it, with what was typed kept.
    func saveEdit(_ page: PageRequest, id: String, form: [(String, String)]) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let first = Dictionary(form) { first, _ in first }
        let edited = Plantguide_Collection_V1_Plant.with { plant in
            plant.id = id
            plant.customName = (first["custom_name"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            plant.location = (first["location"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            plant.notes = (first["notes"] ?? "").replacingOccurrences(of: "\r\n", with: "\n")
            plant.favorite = first["favorite"] != nil
        }
        let updated = await call(Plantguide_Gateway_V1_GatewayService.updatePlant, .with {
            $0.plant = edited
            $0.updateMask.paths = ["custom_name", "location", "notes"]
        }, token: page.token)
        switch updated {
        case .success(let answer) where answer.plant.favorite != edited.favorite:
            let marked = await call(Plantguide_Gateway_V1_GatewayService.setFavorite, .with {
                $0.plantID = id
                $0.favorite = edited.favorite
            }, token: page.token)
            guard case .success = marked else { return failurePage(page, marked) }
        case .success: break
        case .failure(let error) where error.code == .invalidArgument:
            return await editPlant(page, id: id, status: .badRequest, error: error, shown: edited)
        case .failure: return failurePage(page, updated)
        }
        return Self.redirect("/plants/\(id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? id)")
    }
}
