import Foundation

/// The POSIX (ustar) tar subset export archives use: regular files only, names up to 100 bytes.
enum TarArchive {
    /// One file of an archive.
    struct Entry {
        var name: String
        var data: Data
    }

    /// A tar stream of `entries`, ended by two zero blocks.
    static func write(_ entries: [Entry], modified: Date) -> Data {
        var out = Data()
        for entry in entries {
            var header = [UInt8](repeating: 0, count: 512)
            func put(_ text: String, at offset: Int, width: Int) {
                for (index, byte) in text.utf8.prefix(width).enumerated() { header[offset + index] = byte }
            }
            put(entry.name, at: 0, width: 100)
            put("0000644", at: 100, width: 8)
            put("0000000", at: 108, width: 8)
            put("0000000", at: 116, width: 8)
            put(String(format: "%011o", entry.data.count), at: 124, width: 12)
            put(String(format: "%011o", Int(modified.timeIntervalSince1970)), at: 136, width: 12)
            put("        ", at: 148, width: 8)
            header[156] = UInt8(ascii: "0")
            put("ustar", at: 257, width: 6)
            put("00", at: 263, width: 2)
            put(String(format: "%06o", header.reduce(0) { $0 + Int($1) }), at: 148, width: 6)
            header[154] = 0
            header[155] = UInt8(ascii: " ")
            out.append(contentsOf: header)
            out.append(entry.data)
            out.append(Data(count: (512 - entry.data.count % 512) % 512))
        }
        out.append(Data(count: 1_024))
        return out
    }

    /// The entries of a tar stream.
    /// - Throws: INVALID_ARGUMENT naming what is wrong (truncated, bad checksum, not a regular file).
    static func read(_ data: Data, maxEntries: Int = 200_000) throws -> [Entry] {
        let bytes = [UInt8](data)
        var entries: [Entry] = []
        var offset = 0
        while offset + 512 <= bytes.count {
            let header = bytes[offset..<(offset + 512)]
            if header.allSatisfy({ $0 == 0 }) { return entries }
            func field(_ start: Int, _ width: Int) -> String {
                String(decoding: header[(offset + start)..<(offset + start + width)].prefix { $0 != 0 }, as: UTF8.self)
            }
            var sum = 0
            for (index, byte) in header.enumerated() { sum += (148..<156).contains(index) ? 32 : Int(byte) }
            guard let stored = Int(field(148, 8).trimmingCharacters(in: .whitespaces), radix: 8), stored == sum else {
                throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: damaged header at byte \(offset)")
            }
            guard let size = Int(field(124, 12).trimmingCharacters(in: .whitespaces), radix: 8), size >= 0 else {
                throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: bad size at byte \(offset)")
            }
            let type = header[offset + 156]
            guard type == UInt8(ascii: "0") || type == 0 else {
                throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: \(field(0, 100)) is not a regular file")
            }
            let start = offset + 512
            guard start + size <= bytes.count else {
                throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: truncated in \(field(0, 100))")
            }
            entries.append(Entry(name: field(0, 100), data: Data(bytes[start..<(start + size)])))
            guard entries.count <= maxEntries else {
                throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: more than \(maxEntries) files")
            }
            offset = start + (size + 511) / 512 * 512
        }
        throw CollectionError.invalidArgument("archive", .invalidFormat, "archive: truncated (no end blocks)")
    }
}
