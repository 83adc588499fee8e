import Foundation

/// The rows of the web app's long lists, rendered once each in Swift instead of by swift-mustache: a template looks
/// each of a row's ~20 names up through the context stack, a dynamic cast at every level, which made Today's page
/// of 50 tasks 1.8 times its JSON API (`Scripts/bench web`). Every value is HTML-escaped as the templates escape
/// it (``HTMLEscaping``); the markup is the templates' own, and the pages include the rows as they are.
enum WebRows {
    /// One task's row on Today (and the row htmx swaps back in when a done task is undone): what, which plant,
    /// when, and its Done, Tomorrow and Skip buttons, each a form that works without script.
    struct Task {
        var id: String
        var what: String
        var plant: String
        var when: String
        var overdue: Bool
        var doneLabel: String
        var snoozeLabel: String
        var skipLabel: String

        var html: String {
            let (id, plant) = (HTMLEscaping.escaped(id), HTMLEscaping.escaped(plant))
            let label = HTMLEscaping.escaped("\(what) \(self.plant)")
            func button(_ action: String, _ title: String, secondary: Bool) -> String {
                let (kind, title) = (secondary ? " class=\"secondary\"" : "", HTMLEscaping.escaped(title))
                return """
                        <form method="post" action="/tasks/\(id)/\(action)" hx-post="/tasks/\(id)/\(action)" hx-target="closest li" hx-swap="outerHTML">
                          <input type="hidden" name="plant" value="\(plant)">
                          <button type="submit"\(kind)>\(title)<span class="visually-hidden">: \(label)</span></button>
                        </form>

                    """
            }
            let buttons = button("complete", doneLabel, secondary: false) + button("snooze", snoozeLabel, secondary: true)
                + button("skip", skipLabel, secondary: true)
            return """
                <li id="task-\(id)" class="task\(overdue ? " overdue" : "")">
                  <span class="what">\(HTMLEscaping.escaped(what))</span> <span class="plant">\(plant)</span>
                  <span class="when">\(HTMLEscaping.escaped(when))</span>
                  <span class="actions">
                \(buttons)  </span>
                </li>

                """
        }
    }

    /// One plant's card in My plants: its first photo, its name (the search's words marked) linking to its page,
    /// its scientific name, and whether it is a favourite. `name` and `scientificName` are HTML already
    /// (``WebApp/highlighted(_:query:)``).
    struct PlantCard {
        var id: String
        var name: String
        var scientificName: String
        var favorite: Bool
        var photo: (src: String, width: Int, height: Int)?
        var favoriteLabel: String

        var html: String {
            let picture = photo.map { "<img src=\"\(HTMLEscaping.escaped($0.src))\" width=\"\($0.width)\" height=\"\($0.height)\" alt=\"\" loading=\"lazy\">" }
            return """
                  <li class="plant-card">
                    \(picture ?? "")
                    <h2><a href="/plants/\(HTMLEscaping.escaped(id))">\(name)</a></h2>
                    <p class="scientific"><i>\(scientificName)</i></p>
                    \(favorite ? "<p class=\"favorite\">★ \(HTMLEscaping.escaped(favoriteLabel))</p>" : "")
                  </li>

                """
        }
    }
}
