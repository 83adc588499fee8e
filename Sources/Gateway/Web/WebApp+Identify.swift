import Foundation
import Hummingbird
import PlantGuideProtos
import PlantGuideRPCCore

/// Identify: a photo taken or chosen, the candidates with their confidence and source and a plain warning when the
/// answer is a guess, and "Add to my plants", which keeps the photo and plans the care.
///
/// The candidates are shown inside the photo's form, each "Add" button a second submit of it (to `/identify/add`),
/// so the chosen photo goes with the plant without the gateway keeping it in between: by htmx the form stays on
/// the page with its file; without script the page asks for the photo again beside the buttons.
extension WebApp {
    /// Identify: the photo form, its candidates, and one of them added to the person's plants.
    func identifyRoutes() -> RouteCollection<GatewayRequestContext> {
        let routes = WebScreenRoutes(self)
        routes.page("/identify", get: { _, _, page in identifyPage(page) },
                    post: { request, _, page in await identify(page, request, byScript: WebScreenRoutes.byScript(request)) })
        routes.page("/identify/add", post: { request, _, page in await addIdentified(page, request, byScript: WebScreenRoutes.byScript(request)) })
        return routes.collection
    }

    /// Candidates shown: the best five.
    static let shownCandidates = 5

    func identifyPage(_ page: PageRequest) -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        return render("identify", page, ["title": page.strings.format("identify"), "onIdentify": true])
    }

    func identify(_ page: PageRequest, _ request: Request, byScript: Bool) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let strings = page.strings
        let upload: Upload
        switch await Self.upload(request, limit: maxUploadBytes) {
        case .success(let read): upload = read
        case .failure(let problem): return identifyProblem(page, problem, byScript: byScript)
        }
        guard let photo = upload.file else { return identifyProblem(page, .noPhoto, byScript: byScript) }
        let answer = await call(Plantguide_Gateway_V1_GatewayService.identifyPlant, .with {
            $0.images = [.with { $0.data = photo }]
            $0.maxResults = UInt32(Self.shownCandidates)
            $0.language = strings["language"] ?? "en"
        }, token: page.token)
        let identified: Plantguide_Gateway_V1_IdentifyPlantResponse
        switch answer {
        case .success(let read): identified = read
        case .failure(let error): return identifyFailure(page, error, byScript: byScript)
        }
        let result = identified.identification
        let candidates: [[String: Any]] = result.candidates.prefix(Self.shownCandidates).enumerated().map { index, candidate in
            let source = candidate.attributes["source"] ?? (result.source == .plantnet ? "plantnet" : "on_device")
            return [
                "index": index, "name": candidate.commonNames.first ?? candidate.scientificName,
                "scientificName": candidate.scientificName, "commonName": candidate.commonNames.first ?? "",
                "family": candidate.family, "genus": candidate.genus, "score": String(candidate.score),
                "confidence": strings.format("confidence", ["percent": Self.percent(candidate.score, strings)]),
                "source": strings.format(source == "plantnet" ? "from.plantnet" : "from.onDevice"),
                "condition": candidate.attributes["condition"].map { strings.format("leafCondition", ["condition": $0]) } ?? "",
            ]
        }
        var values: [String: Any] = [
            "title": strings.format("identify"), "onIdentify": true, "identified": true, "candidates": candidates,
            "hasCandidates": !candidates.isEmpty, "resultSource": "\(result.source.rawValue)", "askAgain": !byScript,
        ]
        if result.noPlantRecognized { values["warning"] = strings.format("noPlantRecognized") }
        else if result.experimental { values["warning"] = strings.format("experimentalGuess") }
        else if result.lowConfidence { values["warning"] = strings.format("lowConfidenceGuess") }
        return byScript ? fragment("identify-results", page, values) : render("identify", page, values)
    }

    /// Saves the candidate chosen with the photo sent again, its identification in the plant's history, and plans
    /// its care; then the plant's page.
    func addIdentified(_ page: PageRequest, _ request: Request, byScript: Bool) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let upload: Upload
        switch await Self.upload(request, limit: maxUploadBytes) {
        case .success(let read): upload = read
        case .failure(let problem): return identifyProblem(page, problem, byScript: byScript)
        }
        let fields = upload.fields
        let candidates: [Plantguide_Collection_V1_Candidate] = (0..<Self.shownCandidates).compactMap { index in
            guard let name = fields["candidate-\(index)-scientificName"], !name.isEmpty else { return nil }
            return .with {
                $0.scientificName = name
                if let common = fields["candidate-\(index)-commonName"], !common.isEmpty { $0.commonNames = [common] }
                $0.family = fields["candidate-\(index)-family"] ?? ""
                $0.genus = fields["candidate-\(index)-genus"] ?? ""
                $0.score = Double(fields["candidate-\(index)-score"] ?? "") ?? 0
            }
        }
        guard let choice = fields["choice"].flatMap(Int.init), candidates.indices.contains(choice) else {
            return identifyProblem(page, .noChoice, byScript: byScript)
        }
        let chosen = candidates[choice]
        let plantID = UUID().uuidString.lowercased()
        let saved = await call(Plantguide_Gateway_V1_GatewayService.savePlant, .with {
            $0.plant = .with {
                $0.id = plantID
                $0.scientificName = chosen.scientificName
                $0.commonNames = chosen.commonNames
                $0.family = chosen.family
                $0.genus = chosen.genus
            }
            if let photo = upload.file { $0.photo = photo }
            $0.identification = .with {
                $0.id = UUID().uuidString.lowercased()
                $0.identifiedAt = .init(date: Date())
                $0.source = Self.identificationSource(fields["resultSource"])
                $0.confidence = candidates.first?.score ?? 0
                $0.topResults = candidates
            }
        }, token: page.token)
        if case .failure(let error) = saved { return identifyFailure(page, error, byScript: byScript) }
        let location = Self.plantPath(plantID)
        return byScript ? Self.htmxRedirect(location) : Self.redirect(location)
    }

    /// What a failed call shows: a photo the services could not use beside the field; by htmx any other failure
    /// there too (htmx swaps in only what comes with a 2xx status), and a lost session as a trip to sign in.
    private func identifyFailure(_ page: PageRequest, _ error: RPCError, byScript: Bool) -> Response {
        if error.code == .invalidArgument { return identifyProblem(page, .unreadable(error.message), byScript: byScript) }
        guard byScript else { return failurePage(page, Result<Void, RPCError>.failure(error)) }
        if error.code == .unauthenticated { return Self.htmxRedirect("/signin") }
        return identifyProblem(page, .failed(error.message), byScript: true)
    }

    /// htmx follows HX-Redirect with a whole page load, as a plain form follows a 303.
    static func htmxRedirect(_ location: String) -> Response {
        Response(status: .ok, headers: [htmxRedirectHeader: location, .cacheControl: "no-store"])
    }

    /// What an identification or an addition could not use.
    enum UploadProblem: Error {
        case noPhoto
        case tooLarge(Int)
        case notMultipart
        case noChoice
        case unreadable(String)
        /// The services failed (unavailable, over quota, no method left): their words.
        case failed(String)
    }

    /// A file form's file and fields.
    struct Upload {
        var file: Data?
        var fields: [String: String]
    }

    /// The file named `file` (none when empty) and the text fields of a multipart form of at most `limit` bytes.
    static func upload(_ request: Request, limit: Int, file: String = "photo") async -> Result<Upload, UploadProblem> {
        guard let boundary = MultipartBody.boundary(contentType: request.headers[.contentType] ?? "") else { return .failure(.notMultipart) }
        guard let buffer = try? await request.body.collect(upTo: limit) else { return .failure(.tooLarge(limit)) }
        var upload = Upload(file: nil, fields: [:])
        for part in MultipartBody.parts(Data(buffer: buffer), boundary: boundary) {
            if part.filename != nil {
                if part.name == file, !part.content.isEmpty { upload.file = part.content }
            } else if upload.fields[part.name] == nil {
                upload.fields[part.name] = String(decoding: part.content, as: UTF8.self)
            }
        }
        return .success(upload)
    }

    /// The Identify page again with what went wrong beside the photo field (400, or 413 for a photo too large; by htmx
    /// the results alone, 200 so that htmx shows them).
    private func identifyProblem(_ page: PageRequest, _ problem: UploadProblem, byScript: Bool) -> Response {
        let strings = page.strings
        let (message, status): (String, HTTPResponse.Status) = switch problem {
        case .noPhoto, .notMultipart: (strings.format("choosePhoto"), .badRequest)
        case .tooLarge(let limit): (strings.format("photoTooLarge", ["megabytes": "\(limit >> 20)"]), .contentTooLarge)
        case .noChoice: (strings.format("chooseCandidate"), .badRequest)
        case .unreadable(let reason): (strings.format("photoUnreadable", ["reason": reason]), .badRequest)
        case .failed(let reason): (strings.format("identifyFailed", ["reason": reason]), .serviceUnavailable)
        }
        let values: [String: Any] = ["title": strings.format("identify"), "onIdentify": true, "photoError": message]
        return byScript ? fragment("identify-results", page, values) : render("identify", page, status: status, values)
    }

    /// A template alone (no page around it), for htmx to swap in.
    func fragment(_ template: String, _ page: PageRequest, _ values: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        var context = values
        context["strings"] = page.strings
        return Self.html(templates.render(context, withTemplate: template) ?? "", status: status)
    }

    /// A score (0–1) as a whole percentage in the reader's language ("82 %" in Spanish, "82%" in English).
    static func percent(_ score: Double, _ strings: [String: String]) -> String {
        (min(max(score, 0), 1)).formatted(.percent.precision(.fractionLength(0)).locale(Locale(identifier: strings["language"] ?? "en")))
    }

    static func identificationSource(_ field: String?) -> Plantguide_Collection_V1_IdentificationSource {
        switch field.flatMap(Int.init).flatMap(Plantguide_Identification_V1_ResultSource.init(rawValue:)) {
        case .onDevice: .onDevice
        case .plantnet: .plantnet
        case .hybrid: .hybrid
        default: .unspecified
        }
    }

    static let htmxRedirectHeader = HTTPFields.Element.Name("HX-Redirect")!
}
