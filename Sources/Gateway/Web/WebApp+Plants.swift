import Foundation
import Hummingbird
import PlantGuideProtos
import PlantGuideRPCCore

/// My plants and a plant's own page, and deleting one.
extension WebApp {
    /// My plants: the list, its search, its favourites and its order.
    func plantsRoutes() -> RouteCollection<GatewayRequestContext> {
        let routes = WebScreenRoutes(self)
        routes.page("/plants", get: { request, _, page in
            let query = request.uri.queryParameters
            return await plants(page, query: query["q"].map(String.init) ?? "", favoritesOnly: query["favorites"] == "1",
                                sort: query["sort"].map(String.init) ?? "added")
        })
        return routes.collection
    }

    /// A plant: its page, its edit form, its deletion, a photo added.
    func plantRoutes() -> RouteCollection<GatewayRequestContext> {
        let routes = WebScreenRoutes(self)
        @Sendable func plantID(_ context: GatewayRequestContext) -> String { WebScreenRoutes.parameter("id", context) ?? "" }
        routes.page("/plants/{id}", get: { _, context, page in await plant(page, id: plantID(context)) })
        routes.page("/plants/{id}/edit", get: { _, context, page in await editPlant(page, id: plantID(context)) },
                    post: { request, context, page in await saveEdit(page, id: plantID(context), form: await Self.formFields(request)) })
        routes.page("/plants/{id}/delete", get: { _, context, page in await confirmDeletion(page, id: plantID(context)) },
                    post: { _, context, page in await delete(page, id: plantID(context)) })
        // A photo is added by a form post; the address opened as a link shows the plant.
        routes.page("/plants/{id}/photo", get: { _, context, _ in Self.redirect(Self.plantPath(plantID(context))) },
                    post: { request, context, page in await addPhoto(page, id: plantID(context), request) })
        return routes.collection
    }

    /// How My plants can be ordered: the form's value, the collection's sort, the catalog key of its label.
    private static let sorts: [(value: String, sort: Plantguide_Collection_V1_PlantSort, key: String)] = [
        ("added", .dateAdded, "sort.added"), ("name", .name, "sort.name"), ("family", .family, "sort.family"),
    ]

    /// My plants: the first 100 that match the search (its words marked in the names) and the filters.
    func plants(_ page: PageRequest, query: String, favoritesOnly: Bool = false, sort: String = "added") async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let chosen = Self.sorts.first { $0.value == sort } ?? Self.sorts[0]
        async let numbers = call(Plantguide_Gateway_V1_GatewayService.getCollectionStatistics, .init(), token: page.token)
        let listed = await call(Plantguide_Gateway_V1_GatewayService.listPlants, .with {
            $0.filter.query = query
            $0.filter.pageSize = 100
            $0.filter.favoritesOnly = favoritesOnly
            $0.filter.sort = chosen.sort
            $0.filter.descending = chosen.sort == .dateAdded  // the newest first
        }, token: page.token)
        guard case .success(let answer) = listed else { return failurePage(page, listed) }
        let strings = page.strings
        let favoriteLabel = strings.format("favorite")
        let cards = answer.page.plants.map { plant in
            WebRows.PlantCard(id: plant.id, name: Self.highlighted(Self.displayName(plant), query: query),
                              scientificName: Self.highlighted(plant.scientificName, query: query), favorite: plant.favorite,
                              photo: plant.photos.first.map { Self.size($0, longerSide: 256) }, favoriteLabel: favoriteLabel).html
        }
        var values: [String: Any] = [
            "title": strings.format("myPlants"), "onPlants": true, "cards": cards.joined(), "hasPlants": !cards.isEmpty, "query": query,
            "count": strings.format("plantCount", ["count": "\(answer.page.totalMatching)"]), "favoritesOnly": favoritesOnly,
            "sorts": Self.sorts.map { ["value": $0.value, "label": strings.format($0.key), "chosen": $0.value == chosen.value] },
        ]
        // The whole collection in numbers; the page goes without them when the collection cannot count.
        if case .success(let counted) = await numbers, counted.statistics.totalPlants > 0 {
            let statistics = counted.statistics
            values["statistics"] = strings.format("statistics", [
                "plants": "\(statistics.totalPlants)", "favorites": "\(statistics.favorites)", "families": "\(statistics.plantsPerFamily.count)",
                "month": "\(statistics.addedThisMonth)",
            ])
        }
        return render("plants", page, values)
    }

    /// - Parameter photoError: why a photo added from the page was refused, said beside its field.
    func plant(_ page: PageRequest, id: String, status: HTTPResponse.Status = .ok, photoError: String? = nil) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let read = await call(Plantguide_Gateway_V1_GatewayService.getPlantDetails, .with { $0.plantID = id }, token: page.token)
        guard case .success(let details) = read else { return failurePage(page, read) }
        let strings = page.strings
        let plant = details.plant
        var values: [String: Any] = [
            "title": Self.displayName(plant), "id": plant.id, "name": Self.displayName(plant), "scientificName": plant.scientificName,
            "favorite": plant.favorite, "hasCare": details.hasCareInfo,
            "tasks": details.upcomingTasks.prefix(5).map { ["what": Self.verb($0.type, strings), "due": Self.day($0.dueDate, strings)] },
            "hasTasks": !details.upcomingTasks.isEmpty, "history": Self.history(details.identifications, strings),
            "hasHistory": !details.identifications.isEmpty,
        ]
        values["photoError"] = photoError
        if !plant.notes.isEmpty { values["notes"] = plant.notes }
        if !plant.location.isEmpty { values["location"] = plant.location }
        values["photos"] = plant.photos.map { photo in
            Self.picture(photo, longerSide: 1024).merging(["alt": strings.format("photoOf", ["name": Self.displayName(plant)])]) { $1 }
        }
        values["hasPhotos"] = !plant.photos.isEmpty
        if details.hasCareInfo {
            let care = details.careInfo
            var facts: [[String: String]] = []
            func fact(_ label: String, _ value: String, _ field: String) -> [String: String] {
                ["label": strings.format(label), "value": value, "from": strings.format(Self.origin(care, field))]
            }
            if care.watering.intervalDays > 0 {
                facts.append(fact("fact.watering", strings.format("everyDays", ["days": "\(care.watering.intervalDays)"]), "watering"))
            }
            let light: String? = switch care.light.level {
            case .fullShade: "light.fullShade"
            case .partialShade: "light.partialShade"
            case .partialSun: "light.partialSun"
            case .fullSun: "light.fullSun"
            default: nil
            }
            if let light { facts.append(fact("fact.light", strings.format(light), "light")) }
            if care.hasTemperature {
                let fahrenheit = page.units == .imperial
                let degrees = { (celsius: Double) in String(format: "%.0f", fahrenheit ? celsius * 9 / 5 + 32 : celsius) }
                facts.append(fact("fact.temperature", strings.format(fahrenheit ? "temperatureRangeF" : "temperatureRange", [
                    "min": degrees(care.temperature.minCelsius), "max": degrees(care.temperature.maxCelsius),
                ]), "temperature"))
            }
            if !care.soil.isEmpty { facts.append(fact("fact.soil", care.soil, "soil")) }
            values["facts"] = facts
            let source = switch care.source {
            case .trefle, .openPlantbook, .perenual: "source.fetched"
            case .cache: "source.cache"
            case .staleCache: "source.staleCache"
            case .catalog: "source.catalog"
            default: "source.default"
            }
            values["source"] = strings.format(source)
        }
        return render("plant", page, status: status, values.merging(["onPlants": true]) { $1 })
    }

    /// A photo's thumbnail (served by the JSON API to its owner and households only) and its size in pixels, so that
    /// the page does not move as it loads; the original's address for a link.
    static func picture(_ photo: Plantguide_Collection_V1_Photo, longerSide: Int) -> [String: Any] {
        let sized = size(photo, longerSide: longerSide)
        return ["src": sized.src, "original": "/v1/photos/\(photo.sha256)", "width": sized.width, "height": sized.height]
    }

    /// The address of `photo` at `longerSide` pixels (the collection's thumbnail sizes), and its size there.
    static func size(_ photo: Plantguide_Collection_V1_Photo, longerSide: Int) -> (src: String, width: Int, height: Int) {
        let longer = max(Int(photo.width), Int(photo.height), 1)
        let scale = min(1, Double(longerSide) / Double(longer))
        return ("/v1/photos/\(photo.sha256)?size=\(longerSide)", max(1, Int((Double(photo.width) * scale).rounded())),
                max(1, Int((Double(photo.height) * scale).rounded())))
    }

    /// The catalog key of where a care field came from: its own source when the answer was merged, else the
    /// answer's.
    static func origin(_ care: Plantguide_Caredata_V1_CareInfo, _ field: String) -> String {
        switch care.fieldSources[field] ?? care.source {
        case .trefle: "from.trefle"
        case .openPlantbook: "from.openPlantbook"
        case .perenual: "from.perenual"
        case .catalog: "from.catalog"
        case .cache, .staleCache: "from.cache"
        default: "from.default"
        }
    }

    func confirmDeletion(_ page: PageRequest, id: String) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let read = await call(Plantguide_Gateway_V1_GatewayService.getPlantDetails, .with { $0.plantID = id }, token: page.token)
        guard case .success(let details) = read else { return failurePage(page, read) }
        let path = Self.plantPath(id)
        return render("delete", page, ["title": page.strings.format("deletePlant"), "heading": page.strings.format("deletePlant"), "onPlants": true,
                                       "question": page.strings.format("deleteQuestion", ["name": Self.displayName(details.plant)]),
                                       "action": path + "/delete", "back": path])
    }

    func delete(_ page: PageRequest, id: String) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let deleted = await call(Plantguide_Gateway_V1_GatewayService.deletePlant, .with { $0.plantID = id }, token: page.token)
        guard case .success = deleted else { return failurePage(page, deleted) }
        return Self.redirect("/plants")
    }
}
