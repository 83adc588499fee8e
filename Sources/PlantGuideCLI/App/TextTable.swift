import Foundation

/// Prints rows as aligned columns, the header bold on a terminal.
enum TextTable {
    static func print(header: [String], rows: [[String]]) {
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }
        let bold = isatty(STDOUT_FILENO) != 0 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
        Swift.print(bold ? "\u{1B}[1m\(line(header))\u{1B}[0m" : line(header))
        for row in rows { Swift.print(line(row)) }
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
