// The ZeroMQ transport's users get the core's types (errors, router, call options) with one import.
@_exported import PlantGuideRPCCore
