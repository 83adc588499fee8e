import Foundation
import PlantGuideCore
import PlantGuideProtos
import PlantGuideStorage
import PostgresNIO

/// Task lists, counts, changes and the calendar feed in PostgreSQL.
extension PostgresScheduling {
    public func tasks(_ query: TaskQuery, owner: String, at time: Date) async throws -> [CareTask] {
        try await forToday(owner: owner, at: time) { session, today in
            let open = [1, 3]
            let (states, days): ([Int], ClosedRange<Int>) = switch query.view {
            case .overdue: (open, Int(Int32.min)...today - 1)
            case .today: (open, today...today)
            case .due: (open, Int(Int32.min)...today)
            case .upcoming: (open, today + 1...Int(Int32.max))
            case .range: ([], query.range ?? 0...0)
            default: (open, Int(Int32.min)...Int(Int32.max))
            }
            let rows = try await session.execute(ListTasksStatement(
                owner: owner, states: states, firstDay: days.lowerBound, lastDay: days.upperBound, kinds: query.types,
                plantID: query.plantID, limit: query.limit))
            return (rows.first?.preferences, rows.compactMap(\.task))
        }
    }

    public func badge(owner: String, at time: Date) async throws -> (overdue: Int, today: Int) {
        try await forToday(owner: owner, at: time) { session, today in
            let row = try await session.all("""
                SELECT (SELECT message FROM preferences WHERE owner_id = \(owner)),
                       count(*) FILTER (WHERE due_day < \(today)), count(*) FILTER (WHERE due_day = \(today))
                FROM task WHERE owner_id = \(owner) AND state IN (1, 3)
                """, as: (Data?, Int, Int).self).first
            return (row?.0, (row?.1 ?? 0, row?.2 ?? 0))
        }
    }

    public func counts(firstDay: Int, lastDay: Int, owner: String) async throws -> [Int: UInt32] {
        try await database.read { session in
            var counts: [Int: UInt32] = [:]
            for (day, count) in try await session.all("""
                SELECT due_day, count(*) FROM task WHERE owner_id = \(owner) AND state <> 4 AND due_day BETWEEN \(firstDay) AND \(lastDay)
                GROUP BY due_day
                """, as: (Int, Int).self) {
                counts[day] = UInt32(count)
            }
            return counts
        }
    }

    public func taskCounts(plantIDs: [String], owner: String, at time: Date) async throws -> [String: Plantguide_Scheduling_V1_PlantTaskCounts] {
        try await database.read { session in
            let today = try SchedulePlanning.today(await Self.preferences(session, owner: owner), at: time).dayNumber
            let rows = try await session.all("""
                SELECT plant_id, count(*) FILTER (WHERE due_day < \(today)), count(*) FILTER (WHERE due_day = \(today)),
                       count(*) FILTER (WHERE due_day > \(today))
                FROM task WHERE owner_id = \(owner) AND state IN (1, 3) GROUP BY plant_id
                """, as: (String, Int, Int, Int).self)
            let scheduled = plantIDs.isEmpty
                ? try await session.all("SELECT plant_id FROM schedule WHERE owner_id = \(owner)", as: String.self) : []
            return SchedulingStore.taskCounts(
                plantIDs: plantIDs, scheduled: scheduled,
                rows: rows.map { (plantID: $0.0, overdue: UInt32($0.1), today: UInt32($0.2), upcoming: UInt32($0.3)) })
        }
    }

    public func complete(ids: [String], when: Double, owner: String, at time: Date) async throws -> (completed: [CareTask], planned: [CareTask]) {
        try await write(owner: owner) { session in
            var plants: Set<String> = []
            for id in ids {
                guard let task = try await Self.task(session, id: id, owner: owner) else { throw SchedulingError(.notFound, "no task \(id)") }
                guard task.state != .completed else { continue }
                try await session.query("UPDATE task SET state = 2, completed_at = \(when) WHERE owner_id = \(owner) AND id = \(id)")
                if task.recurring { plants.insert(task.plantID) }
            }
            let preferences = plants.isEmpty ? nil : try await Self.preferences(session, owner: owner)
            for plant in plants {
                if let schedule = try await Self.schedule(session, plantID: plant, owner: owner) {
                    try await Self.plan(session, schedule, owner: owner, at: time, preferences: preferences)
                }
            }
            var completed: [CareTask] = []
            for id in ids { if let task = try await Self.task(session, id: id, owner: owner) { completed.append(task) } }
            var planned: [CareTask] = []
            for plant in plants.sorted() {
                planned += try await PostgresTaskRows.tasks(session.query("""
                    SELECT \(unescaped: PostgresTaskRows.columns) FROM task
                    WHERE owner_id = \(owner) AND plant_id = \(plant) AND state = 1 AND recurring ORDER BY due_day, kind
                    """))
            }
            return (completed, planned)
        }
    }

    public func snooze(id: String, owner: String, _ change: @escaping @Sendable (SchedulePreferences) throws -> (day: Int?, remindAt: Double)) async throws
        -> CareTask {
        try await write(owner: owner) { session in
            guard let task = try await Self.task(session, id: id, owner: owner) else { throw SchedulingError(.notFound, "no task \(id)") }
            try SchedulingStore.requireOpen(task)
            let (day, remind) = try change(try SchedulePreferences(wire: await Self.preferences(session, owner: owner)))
            if let day {
                try await session.query("""
                    UPDATE task SET state = 3, due_day = \(day), snoozed_until_day = \(day), remind_at = \(remind), reminded_at = NULL
                    WHERE owner_id = \(owner) AND id = \(id)
                    """)
            } else {
                try await session.query("""
                    UPDATE task SET state = 3, remind_at = \(remind), reminded_at = NULL WHERE owner_id = \(owner) AND id = \(id)
                    """)
            }
            return try await Self.task(session, id: id, owner: owner)!
        }
    }

    public func skip(id: String, owner: String) async throws -> CareTask {
        try await write(owner: owner) { session in
            guard let task = try await Self.task(session, id: id, owner: owner) else { throw SchedulingError(.notFound, "no task \(id)") }
            guard task.state != .completed else { throw SchedulingError(.failedPrecondition, "task \(id) is completed") }
            try await session.query("UPDATE task SET state = 4 WHERE owner_id = \(owner) AND id = \(id)")
            return try await Self.task(session, id: id, owner: owner)!
        }
    }

    public func reopen(id: String, owner: String, at time: Date) async throws -> CareTask {
        try await write(owner: owner) { session in
            let rows = try await session.all("""
                SELECT plant_id, kind, state, due_day, remind_at, recurring, note, reminded_at FROM task WHERE owner_id = \(owner) AND id = \(id)
                """, as: (String, Int, Int, Int, Double, Bool, String, Double?).self)
            guard let (plantID, kind, state, dueDay, remindAt, recurring, note, remindedAt) = rows.first else {
                throw SchedulingError(.notFound, "no task \(id)")
            }
            guard state == 2 || state == 4 else { return try await Self.task(session, id: id, owner: owner)! }
            try await session.query("UPDATE task SET state = 1, completed_at = NULL WHERE owner_id = \(owner) AND id = \(id)")
            if state == 2, recurring, let schedule = try await Self.schedule(session, plantID: plantID, owner: owner) {
                // Planning again replaces the open occurrences from today on, this one among them when it is due
                // today or later: it is put back as it was, if planning did not make it again.
                _ = try await Self.plan(session, schedule, owner: owner, at: time)
                try await session.query("""
                    INSERT INTO task (owner_id, id, plant_id, kind, state, due_day, remind_at, recurring, note, reminded_at)
                    VALUES (\(owner), \(id), \(plantID), \(kind), 1, \(dueDay), \(remindAt), true, \(note), \(remindedAt))
                    ON CONFLICT (owner_id, id) DO NOTHING
                    """)
            }
            return try await Self.task(session, id: id, owner: owner)!
        }
    }

    public func add(_ task: CareTask, dueDay: Int, owner: String) async throws -> CareTask {
        try await write(owner: owner) { session in
            let preferences = try SchedulePreferences(wire: await Self.preferences(session, owner: owner))
            let remind = SchedulePlanning.remindAt(LocalDate(dayNumber: dueDay), preferences: preferences).timeIntervalSince1970
            try await session.query("""
                INSERT INTO task (owner_id, id, plant_id, kind, state, due_day, remind_at, recurring, note)
                VALUES (\(owner), \(task.id), \(task.plantID), \(task.type.rawValue), 1, \(dueDay), \(remind), false, \(task.note))
                ON CONFLICT (owner_id, id) DO NOTHING
                """)
            return try await Self.task(session, id: task.id, owner: owner)!
        }
    }

    public func openTask(plantID: String, kind: Int, owner: String, at time: Date) async throws -> String? {
        try await database.read { session in
            let today = try SchedulePlanning.today(await Self.preferences(session, owner: owner), at: time).dayNumber
            return try await session.all("""
                SELECT id FROM task WHERE owner_id = \(owner) AND plant_id = \(plantID) AND kind = \(kind) AND state IN (1, 3)
                    AND due_day <= \(today)
                ORDER BY due_day LIMIT 1
                """, as: String.self).first
        }
    }

    public func recordDone(plantID: String, kind: Int, when: Date, owner: String) async throws -> Schedule? {
        try await write(owner: owner) { session in
            let day = try SchedulePlanning.today(await Self.preferences(session, owner: owner), at: when).dayNumber
            try await session.query("""
                INSERT INTO task (owner_id, id, plant_id, kind, state, due_day, remind_at, completed_at, recurring)
                VALUES (\(owner), \(SchedulingStore.doneID(plantID: plantID, kind: kind, when: when)), \(plantID), \(kind), 2, \(day), -1,
                        \(when.timeIntervalSince1970), false)
                ON CONFLICT (owner_id, id) DO NOTHING
                """)
            return try await Self.schedule(session, plantID: plantID, owner: owner)
        }
    }

    public func calendarFeed(days: Int, ifVersion: String, owner: String, at time: Date, feeds: CalendarFeeds) async throws -> CalendarFeed {
        // One transaction (repeatable read): the feed rendered below is of the version read here. Rendering is CPU
        // work, done off the cooperative pool after the transaction.
        let read = try await database.write { session -> Either in
            try await session.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            let preferences = try await Self.preferences(session, owner: owner)
            let today = try SchedulePlanning.today(preferences, at: time)
            let stored = try await session.all("SELECT version FROM calendar_version WHERE owner_id = \(owner)", as: Int64.self).first ?? Int64(0)
            let version = CalendarFeed.version(stored: stored, today: today, days: days)
            if version == ifVersion { return .feed(CalendarFeed(ics: nil, version: version)) }
            if let ics = feeds.feed(owner: owner, version: version) { return .feed(CalendarFeed(ics: ics, version: version)) }
            let schedules = try await Self.schedules(session, owner: owner)
            let tasks = try await PostgresTaskRows.tasks(session.query("""
                SELECT \(unescaped: PostgresTaskRows.columns) FROM task
                WHERE owner_id = \(owner) AND state IN (1, 3) AND due_day BETWEEN \(today.dayNumber) AND \(today.adding(days: days).dayNumber)
                ORDER BY due_day, plant_id
                """))
            return .render(version: version, tasks: tasks, schedules: schedules, preferences: preferences)
        }
        switch read {
        case .feed(let feed):
            return feed
        case .render(let version, let tasks, let schedules, let preferences):
            let ics = await BlockingWork.run { SchedulingStore.renderCalendar(tasks: tasks, schedules: schedules, preferences: preferences, at: time) }
            feeds.keep(ics, owner: owner, version: version)
            return CalendarFeed(ics: ics, version: version)
        }
    }

    /// What the calendar transaction found: the answer, or what to render.
    private enum Either: Sendable {
        case feed(CalendarFeed)
        case render(version: String, tasks: [CareTask], schedules: [Schedule], preferences: Preferences)
    }
}
