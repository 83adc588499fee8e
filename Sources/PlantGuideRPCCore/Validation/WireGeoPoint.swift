import PlantGuideProtos

extension Plantguide_Types_V1_GeoPoint {
    /// Refuses a point off the globe: latitude outside -90…90, longitude outside -180…180, or either not finite.
    /// - Throws: INVALID_ARGUMENT naming `field`.latitude or `field`.longitude.
    public func validate(field: String) throws {
        guard latitude.isFinite, (-90...90).contains(latitude) else {
            throw RPCError.invalidArgument(field + ".latitude", .outOfRange, "\(field).latitude must be from -90 to 90")
        }
        guard longitude.isFinite, (-180...180).contains(longitude) else {
            throw RPCError.invalidArgument(field + ".longitude", .outOfRange, "\(field).longitude must be from -180 to 180")
        }
    }
}
