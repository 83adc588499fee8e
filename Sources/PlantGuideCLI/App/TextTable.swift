import Foundation

/// Prints rows as aligned columns; on a terminal the header is bold and cells may have a style.
enum TextTable {
    /// `style(row, column)` picks a cell's style (overdue in red, say); it is only applied on a terminal.
    static func print(header: [String], rows: [[String]], style: (Int, Int) -> Terminal.Style? = { _, _ in nil }) {
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String], _ styleOf: (Int) -> Terminal.Style?) -> String {
            let last = cells.count - 1
            return cells.enumerated().map { column, cell in
                // Padded before painting, so that the escape codes do not count as width.
                Terminal.paint(column == last ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0), styleOf(column))
            }.joined(separator: "  ")
        }
        Swift.print(line(header) { _ in .bold })
        for (index, row) in rows.enumerated() { Swift.print(line(row) { style(index, $0) }) }
    }

    /// Pretty JSON for --json.
    static func printJSON(_ data: Data) {
        if let object = try? JSONSerialization.jsonObject(with: data),
           let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]) {
            Swift.print(String(decoding: pretty, as: UTF8.self))
        } else {
            Swift.print(String(decoding: data, as: UTF8.self))
        }
    }
}
