import Foundation

/// The first file part of a multipart/form-data body (RFC 7578), for photo uploads from HTML forms and apps that
/// send them so.
enum MultipartBody {
    /// The boundary named by a Content-Type such as `multipart/form-data; boundary=xyz`, or nil.
    static func boundary(contentType: String) -> String? {
        guard contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }

    /// One part of the body: its form field's name, its filename when it is a file, and its content.
    struct Part {
        var name: String
        var filename: String?
        var content: Data
    }

    /// The parts of a multipart body with that boundary, in order; empty when it is not one.
    static func parts(_ body: Data, boundary: String) -> [Part] {
        let delimiter = Data("--\(boundary)".utf8)
        var raw: [Data] = []
        var searchFrom = body.startIndex
        var partStart: Data.Index?
        while let found = body.range(of: delimiter, in: searchFrom..<body.endIndex) {
            if let start = partStart { raw.append(body[start..<found.lowerBound]) }
            partStart = found.upperBound
            searchFrom = found.upperBound
        }
        return raw.compactMap { part in
            guard let headerEnd = part.range(of: Data("\r\n\r\n".utf8)) else { return nil }
            let headers = String(decoding: part[part.startIndex..<headerEnd.lowerBound], as: UTF8.self)
            var content = part[headerEnd.upperBound..<part.endIndex]
            if content.suffix(2) == Data("\r\n".utf8) { content = content.dropLast(2) }
            return Part(name: parameter("name", in: headers) ?? "", filename: parameter("filename", in: headers), content: Data(content))
        }
    }

    /// The content of the first part that carries a filename (else the first part), or nil when the body is not
    /// multipart with that boundary.
    static func firstFile(_ body: Data, boundary: String) -> Data? {
        let all = parts(body, boundary: boundary)
        return (all.first { $0.filename != nil } ?? all.first)?.content
    }

    /// A parameter of the part's Content-Disposition (`name="photo"`), unquoted.
    private static func parameter(_ key: String, in headers: String) -> String? {
        for line in headers.split(separator: "\r\n") where line.lowercased().hasPrefix("content-disposition:") {
            for item in line.split(separator: ";").dropFirst() {
                let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if pair.count == 2, pair[0].lowercased() == key { return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            }
        }
        return nil
    }
}
