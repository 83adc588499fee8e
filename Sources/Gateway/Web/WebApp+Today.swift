import Foundation
import Hummingbird
import PlantGuideProtos
import PlantGuideRPC

/// Today: the tasks due and overdue, each done in one tap.
extension WebApp {
    func today(_ page: PageRequest) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        // Overdue and today's, by the person's own time zone, which scheduling keeps.
        async let overdueCall = call(Plantguide_Gateway_V1_GatewayService.listTasks, .with { $0.view = .overdue }, token: page.token)
        async let todayCall = call(Plantguide_Gateway_V1_GatewayService.listTasks, .with { $0.view = .today }, token: page.token)
        let (overdue, dueToday) = await (overdueCall, todayCall)
        guard case .success(let late) = overdue else { return failurePage(page, overdue) }
        guard case .success(let current) = dueToday else { return failurePage(page, dueToday) }
        let strings = page.strings
        let names = late.plantNames.merging(current.plantNames) { first, _ in first }
        let lateIDs = Set(late.tasks.map(\.id))
        let due = late.tasks.map { ($0, true) } + current.tasks.filter { !lateIDs.contains($0.id) }.map { ($0, false) }
        let tasks: [[String: Any]] = due.map { task, isLate in
            [
                "id": task.id, "what": Self.verb(task.type, strings), "plant": names[task.plantID] ?? task.plantID,
                "when": isLate ? strings.format("overdueSince", ["date": Self.day(task.dueDate, strings)]) : strings.format("dueToday"),
                "overdue": isLate,
            ]
        }
        let badge = strings.format("overdueAndToday", ["overdue": "\(current.badge.overdue)", "today": "\(current.badge.today)"])
        return render("today", page, ["title": strings.format("today"), "onToday": true, "tasks": tasks, "hasTasks": !tasks.isEmpty,
                                      "badge": badge])
    }

    func complete(_ page: PageRequest, taskID: String, byScript: Bool) async -> Response {
        guard page.token != nil else { return Self.redirect("/signin") }
        let completed = await call(Plantguide_Gateway_V1_GatewayService.completeTasks, .with { $0.taskIds = [taskID] }, token: page.token)
        guard case .success(let answer) = completed else { return failurePage(page, completed) }
        guard byScript, let task = answer.completed.first else { return Self.redirect("/today") }
        // htmx swaps the task's row for this one.
        let row = templates.render(["id": task.id, "what": Self.verb(task.type, page.strings), "plant": task.plantID,
                                    "strings": page.strings], withTemplate: "task-done") ?? ""
        return Self.html(row, status: .ok)
    }
}
