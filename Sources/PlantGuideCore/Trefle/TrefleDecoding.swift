import Foundation

extension JSONDecoder {
    /// A decoder for Trefle's snake_case JSON.
    public static var trefle: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}
