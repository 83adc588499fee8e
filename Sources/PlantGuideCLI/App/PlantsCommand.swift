import ArgumentParser
import Foundation

/// `plantguide plants list|show|add|rm`: the person's collection through the gateway.
struct PlantsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plants", abstract: "List, show, add, edit, favour and remove your plants.",
        subcommands: [List.self, Show.self, Add.self, Edit.self, Favorite.self, Remove.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Your plants, newest first, optionally matching words.")
        @Option(help: "Words of a name, family, location or note.") var query: String?
        @Flag(help: "Print the gateway's JSON.") var json = false

        func run() async throws {
            try await runApp {
                var path = "/v1/plants?filter.page_size=500&filter.sort=PLANT_SORT_DATE_ADDED&filter.descending=true"
                if let query, let encoded = query.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) { path += "&filter.query=\(encoded)" }
                let body = try await GatewayClient(try AppConfiguration.load()).call("GET", path)
                if json { return TextTable.printJSON(body) }
                let page = (try JSONSerialization.jsonObject(with: body) as? [String: Any])?["page"] as? [String: Any]
                let plants = page?["plants"] as? [[String: Any]] ?? []
                TextTable.print(header: ["ID", "NAME", "SPECIES", "LOCATION", "PHOTOS"], rows: plants.map { plant in
                    [plant["id"] as? String ?? "", plant["customName"] as? String ?? "", plant["scientificName"] as? String ?? "",
                     plant["location"] as? String ?? "", String((plant["photos"] as? [Any])?.count ?? 0)]
                })
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A plant with its care and upcoming tasks.")
        @Argument(help: "The plant's id.") var id: String
        @Flag(help: "Print the gateway's JSON.") var json = false

        func run() async throws {
            try await runApp {
                let body = try await GatewayClient(try AppConfiguration.load()).call("GET", "/v1/plants/\(Self.escape(id))")
                if json { return TextTable.printJSON(body) }
                let details = try JSONSerialization.jsonObject(with: body) as? [String: Any] ?? [:]
                let plant = details["plant"] as? [String: Any] ?? [:]
                let care = details["careInfo"] as? [String: Any] ?? [:]
                print("\(plant["customName"] as? String ?? "") (\(plant["scientificName"] as? String ?? "")), id \(id)")
                if !care.isEmpty {
                    print("water \(CareWords.watering(care)); light: \(CareWords.light(care)); feed: \(CareWords.fertilizer(care))")
                    if let harvest = CareWords.harvest(care) { print("harvest: \(harvest)") }
                }
                TextTable.print(header: ["TASK", "DUE", "ID"], rows: ((details["upcomingTasks"] as? [[String: Any]]) ?? []).map {
                    [CareWords.task($0["type"]), $0["dueDate"] as? String ?? "", $0["id"] as? String ?? ""]
                })
            }
        }

        static func escape(_ id: String) -> String { id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? id }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save a plant (care info and a care schedule come with it), with an optional photo.")
        @Argument(help: "An id of your choice for it, e.g. monty.") var id: String
        @Argument(help: "Its scientific name, e.g. \"Monstera deliciosa\".") var species: String
        @Option(help: "What you call it.") var name: String?
        @Option(help: "Where it stands.") var location: String?
        @Option(help: "A photo of it (JPEG, PNG, WebP or HEIC).") var photo: String?
        @Flag(help: "Print the gateway's JSON.") var json = false

        func run() async throws {
            try await runApp {
                var plant: [String: Any] = ["scientificName": species]
                if let name { plant["customName"] = name }
                if let location { plant["location"] = location }
                var request: [String: Any] = ["plant": plant]
                if let photo { request["photo"] = try Data(contentsOf: URL(fileURLWithPath: photo)).base64EncodedString() }
                let body = try await GatewayClient(try AppConfiguration.load()).call("PUT", "/v1/plants/\(Show.escape(id))", json: request,
                                                                                      progress: photo == nil ? nil : "uploading")
                if json { return TextTable.printJSON(body) }
                let saved = try JSONSerialization.jsonObject(with: body) as? [String: Any] ?? [:]
                let tasks = (saved["tasks"] as? [Any])?.count ?? 0
                let pending = saved["carePending"] as? Bool == true
                print("saved \(id)" + (pending ? "; care info and schedule follow when care data is back" : "; \(tasks) tasks planned"))
            }
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a plant's name, location or notes (reminders follow a new name).")
        @Argument(help: "The plant's id.") var id: String
        @Option(help: "What you call it.") var name: String?
        @Option(help: "Where it stands.") var location: String?
        @Option(help: "Notes about it.") var notes: String?

        func run() async throws {
            try await runApp {
                var plant: [String: Any] = [:]
                var paths: [String] = []
                for (field, value) in [("customName", name), ("location", location), ("notes", notes)] {
                    if let value {
                        plant[field] = value
                        paths.append(field)
                    }
                }
                guard !paths.isEmpty else { throw CLIFailure("give --name, --location or --notes", status: 64) }
                _ = try await GatewayClient(try AppConfiguration.load()).call("PATCH", "/v1/plants/\(Show.escape(id))",
                                                                            json: ["plant": plant, "updateMask": paths.joined(separator: ",")])
                print("updated \(id): \(paths.joined(separator: ", "))")
            }
        }
    }

    struct Favorite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "fav", abstract: "Mark a plant as a favourite (--off to unmark).")
        @Argument(help: "The plant's id.") var id: String
        @Flag(help: "Unmark it.") var off = false

        func run() async throws {
            try await runApp {
                _ = try await GatewayClient(try AppConfiguration.load()).call("POST", "/v1/plants/\(Show.escape(id)):favorite",
                                                                            json: ["favorite": !off])
                print(off ? "\(id) is no longer a favourite" : "\(id) is a favourite")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete a plant with its photos and tasks.")
        @Argument(help: "The plant's id.") var id: String

        func run() async throws {
            try await runApp {
                let removed = try await GatewayClient(try AppConfiguration.load()).object("DELETE", "/v1/plants/\(Show.escape(id))")
                guard removed["deleted"] as? Bool == true else { throw CLIFailure("you have no plant '\(id)' to remove", status: 3) }
                print("deleted \(id)")
            }
        }
    }
}
