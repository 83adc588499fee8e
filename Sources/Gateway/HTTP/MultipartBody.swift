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

    /// The content of the first part that carries a filename (else the first part), or nil when the body is not
    /// multipart with that boundary.
    static func firstFile(_ body: Data, boundary: String) -> Data? {
        let delimiter = Data("--\(boundary)".utf8)
        var parts: [Data] = []
        var searchFrom = body.startIndex
        var partStart: Data.Index?
        while let found = body.range(of: delimiter, in: searchFrom..<body.endIndex) {
            if let start = partStart { parts.append(body[start..<found.lowerBound]) }
            partStart = found.upperBound
            searchFrom = found.upperBound
        }
        var first: Data?
        for part in parts {
            guard let headerEnd = part.range(of: Data("\r\n\r\n".utf8)) else { continue }
            let headers = String(decoding: part[part.startIndex..<headerEnd.lowerBound], as: UTF8.self).lowercased()
            var content = part[headerEnd.upperBound..<part.endIndex]
            if content.suffix(2) == Data("\r\n".utf8) { content = content.dropLast(2) }
            if headers.contains("filename=") { return Data(content) }
            if first == nil { first = Data(content) }
        }
        return first
    }
}
