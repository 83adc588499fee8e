import ArgumentParser
import Foundation

/// `plantguide tasks [today|week|overdue|all]`: what to do, across the plants.
struct TasksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "tasks", abstract: "Your care tasks: today's by default.")

    enum Span: String, ExpressibleByArgument, CaseIterable {
        case today, week, overdue, all
    }

    @Argument(help: "today (and overdue), week (the next seven days), overdue, or all open tasks.") var span: Span = .today
    @Flag(help: "Print the gateway's JSON.") var json = false

    func run() async throws {
        try await runApp {
            let view = span == .overdue ? "VIEW_OVERDUE" : "VIEW_OPEN"
            let body = try await GatewayClient(try AppConfiguration.load()).call("GET", "/v1/tasks?view=\(view)")
            if json { return TextTable.printJSON(body) }
            let answer = try JSONSerialization.jsonObject(with: body) as? [String: Any] ?? [:]
            let names = answer["plantNames"] as? [String: String] ?? [:]
            let today = Date().formatted(.iso8601.year().month().day())
            let weekEnd = Date().addingTimeInterval(7 * 86_400).formatted(.iso8601.year().month().day())
            let tasks = ((answer["tasks"] as? [[String: Any]]) ?? []).filter { task in
                let due = task["dueDate"] as? String ?? ""
                return switch span {
                case .today: due <= today
                case .week: due < weekEnd
                case .overdue, .all: true
                }
            }
            if tasks.isEmpty { return print("nothing to do") }
            let rows = tasks.map { task in
                [task["dueDate"] as? String ?? "", CareWords.task(task["type"]), names[task["plantId"] as? String ?? ""] ?? "",
                 task["id"] as? String ?? ""]
            }
            TextTable.print(header: ["DUE", "TASK", "PLANT", "ID"], rows: rows) { row, column in
                guard column == 0 else { return nil }
                return rows[row][0] < today ? .red : rows[row][0] == today ? .yellow : nil
            }
        }
    }
}

/// `plantguide done TASK...`: marks tasks done.
struct DoneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "done", abstract: "Mark tasks done (ids from plantguide tasks).")
    @Argument(help: "Task ids.") var tasks: [String]

    func run() async throws {
        try await runApp {
            let answer = try await GatewayClient(try AppConfiguration.load()).object("POST", "/v1/tasks:complete", json: ["taskIds": tasks])
            let next = ((answer["planned"] as? [[String: Any]]) ?? []).compactMap { $0["dueDate"] as? String }
            print("done: \(((answer["completed"] as? [Any]) ?? []).count)" + (next.isEmpty ? "" : "; next due \(next.joined(separator: ", "))"))
        }
    }
}
