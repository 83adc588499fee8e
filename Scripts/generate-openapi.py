#!/usr/bin/env python3
"""Writes the gateway's OpenAPI 3.0 document, from the same descriptors as the code: every method of
plantguide.gateway.v1.GatewayService with a google.api.http binding becomes an operation (path variables and, for
methods without a body, the request's scalar fields as query parameters), and every message it reaches becomes a
schema in its proto3 JSON form (lowerCamelCase names, 64-bit integers as strings, enums as their names).

Usage: generate-openapi.py DESCRIPTOR_SET (with source info) > Sources/Gateway/Resources/openapi.json
The gateway bundles the file as a resource and serves it at /openapi.json.
Run by Scripts/generate-protos.
"""
import json
import re
import sys

from google.protobuf import descriptor_pb2

from proto_descriptors import http_rule

SERVICE = "plantguide.gateway.v1.GatewayService"
# The gateway's methods that need no bearer token (GatewayRPCService registers them without authentication).
PUBLIC_METHODS = {"CreateAccount", "CreateSession"}
T = descriptor_pb2.FieldDescriptorProto

SCALARS = {
    T.TYPE_DOUBLE: {"type": "number", "format": "double"},
    T.TYPE_FLOAT: {"type": "number", "format": "float"},
    T.TYPE_INT64: {"type": "string", "format": "int64"},
    T.TYPE_UINT64: {"type": "string", "format": "uint64"},
    T.TYPE_SINT64: {"type": "string", "format": "int64"},
    T.TYPE_FIXED64: {"type": "string", "format": "uint64"},
    T.TYPE_SFIXED64: {"type": "string", "format": "int64"},
    T.TYPE_INT32: {"type": "integer", "format": "int32"},
    T.TYPE_SINT32: {"type": "integer", "format": "int32"},
    T.TYPE_SFIXED32: {"type": "integer", "format": "int32"},
    T.TYPE_UINT32: {"type": "integer", "format": "int64", "minimum": 0},
    T.TYPE_FIXED32: {"type": "integer", "format": "int64", "minimum": 0},
    T.TYPE_BOOL: {"type": "boolean"},
    T.TYPE_STRING: {"type": "string"},
    T.TYPE_BYTES: {"type": "string", "format": "byte"},
}
WELL_KNOWN = {
    ".google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    ".google.protobuf.Duration": {"type": "string", "pattern": "^-?[0-9]+(\\.[0-9]+)?s$"},
    ".google.protobuf.FieldMask": {"type": "string", "description": "Comma-separated lowerCamelCase field paths."},
    ".google.protobuf.Any": {"type": "object", "additionalProperties": True},
}


class Catalog:
    """Messages and enums by full name, with their comments."""

    def __init__(self, descriptor_set):
        self.messages, self.enums, self.comments = {}, {}, {}
        for file in descriptor_set.file:
            locations = {tuple(l.path): l.leading_comments.strip() for l in file.source_code_info.location}
            for index, message in enumerate(file.message_type):
                self.add_message(file.package, message, [4, index], locations)
            for index, enum in enumerate(file.enum_type):
                self.add_enum(file.package, enum, [5, index], locations)
            for s_index, service in enumerate(file.service):
                for m_index, method in enumerate(service.method):
                    key = "%s.%s.%s" % (file.package, service.name, method.name)
                    self.comments[key] = locations.get((6, s_index, 2, m_index), "")

    def add_message(self, scope, message, path, locations):
        full = "." + scope + "." + message.name
        self.messages[full] = message
        self.comments[full] = locations.get(tuple(path), "")
        for index, field in enumerate(message.field):
            self.comments[full + "#" + field.name] = locations.get(tuple(path + [2, index]), "")
        for index, nested in enumerate(message.nested_type):
            self.add_message(scope + "." + message.name, nested, path + [3, index], locations)
        for index, enum in enumerate(message.enum_type):
            self.add_enum(scope + "." + message.name, enum, path + [4, index], locations)

    def add_enum(self, scope, enum, path, locations):
        full = "." + scope + "." + enum.name
        self.enums[full] = enum
        self.comments[full] = locations.get(tuple(path), "")


def schema_name(full):
    return full.lstrip(".").replace(".", "_")


class Builder:
    def __init__(self, catalog):
        self.catalog = catalog
        self.schemas = {}

    def ref(self, full):
        if full in WELL_KNOWN:
            return dict(WELL_KNOWN[full])
        name = schema_name(full)
        if name not in self.schemas:
            self.schemas[name] = {}  # placeholder against recursion
            self.schemas[name] = self.enum_schema(full) if full in self.catalog.enums else self.message_schema(full)
        return {"$ref": "#/components/schemas/" + name}

    def enum_schema(self, full):
        schema = {"type": "string", "enum": [value.name for value in self.catalog.enums[full].value]}
        if self.catalog.comments.get(full):
            schema["description"] = self.catalog.comments[full]
        return schema

    def field_schema(self, message_full, field):
        if field.type == T.TYPE_MESSAGE:
            entry = self.catalog.messages.get(field.type_name)
            if entry is not None and entry.options.map_entry:
                return {"type": "object", "additionalProperties": self.field_schema(field.type_name, entry.field[1])}
            item = self.ref(field.type_name)
        elif field.type == T.TYPE_ENUM:
            item = self.ref(field.type_name)
        else:
            item = dict(SCALARS[field.type])
        if field.label == T.LABEL_REPEATED:
            return {"type": "array", "items": item}
        return item

    def message_schema(self, full):
        message = self.catalog.messages[full]
        properties = {}
        for field in message.field:
            schema = self.field_schema(full, field)
            comment = self.catalog.comments.get(full + "#" + field.name)
            if comment:
                schema = {"allOf": [schema], "description": comment} if "$ref" in schema else dict(schema, description=comment)
            properties[field.json_name] = schema
        schema = {"type": "object", "properties": properties}
        if self.catalog.comments.get(full):
            schema["description"] = self.catalog.comments[full]
        return schema

    def query_parameters(self, full, skip):
        """The request's scalar, enum and repeated-scalar fields, one level of nested messages deep."""
        parameters = []
        for field in self.catalog.messages[full].field:
            if field.name in skip:
                continue
            if field.type == T.TYPE_MESSAGE:
                nested = self.catalog.messages.get(field.type_name)
                if field.type_name in WELL_KNOWN or nested is None or nested.options.map_entry or field.label == T.LABEL_REPEATED:
                    continue
                for inner in nested.field:
                    if inner.type != T.TYPE_MESSAGE:
                        parameters.append(self.parameter(field.name + "." + inner.name, self.field_schema(field.type_name, inner),
                                                         self.catalog.comments.get(field.type_name + "#" + inner.name, "")))
            else:
                parameters.append(self.parameter(field.name, self.field_schema(full, field),
                                                 self.catalog.comments.get(full + "#" + field.name, "")))
        return parameters

    @staticmethod
    def parameter(name, schema, description):
        parameter = {"name": name, "in": "query", "required": False, "schema": schema}
        if schema.get("type") == "array":
            parameter["explode"] = True
        if description:
            parameter["description"] = description
        return parameter


def main(path):
    descriptor_set = descriptor_pb2.FileDescriptorSet()
    with open(path, "rb") as data:
        descriptor_set.ParseFromString(data.read())
    catalog = Catalog(descriptor_set)
    builder = Builder(catalog)
    paths = {}
    for file in descriptor_set.file:
        for service in file.service:
            if "%s.%s" % (file.package, service.name) != SERVICE:
                continue
            for method in service.method:
                rule = http_rule(method.options)
                if not rule:
                    continue
                verb, template, body, response_body = rule
                verb = verb.lower()
                variables = re.findall(r"\{([^}]+)\}", template)
                # OpenAPI tools want plain parameter names: {plant.id} is published as {plant_id} (the server
                # matches by position, and the field path is kept in x-field).
                template = re.sub(r"\{([^}]+)\}", lambda match: "{" + match.group(1).replace(".", "_") + "}", template)
                operation = {
                    "operationId": method.name,
                    "description": catalog.comments.get("%s.%s" % (SERVICE, method.name), ""),
                    "parameters": [{"name": v.replace(".", "_"), "in": "path", "required": True, "schema": {"type": "string"},
                                    "x-field": v} for v in variables] + [{"$ref": "#/components/parameters/CollectionOwner"}],
                    "responses": {
                        "200": {"description": "OK", "content": {"application/json": {"schema": builder.ref(method.output_type)}}},
                        "default": {"description": "An error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                    },
                    "security": [{"bearer": []}],
                }
                if method.name in PUBLIC_METHODS:
                    # How a person gets a token: no token, and no shared collection to act on.
                    operation["security"] = []
                    operation["parameters"] = [p for p in operation["parameters"] if "$ref" not in p]
                if response_body:
                    # The field is the whole answer: a photo's bytes, served as the image itself.
                    operation["responses"]["200"] = {"description": "The image", "headers": {"ETag": {"schema": {"type": "string"}}},
                                                     "content": {"image/*": {"schema": {"type": "string", "format": "binary"}}}}
                if body == "*":
                    operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": builder.ref(method.input_type)}}}
                elif body:
                    # One bytes field is the body: the raw image, a multipart file, or JSON holding it in base64.
                    binary = {"type": "string", "format": "binary"}
                    operation["requestBody"] = {"required": True, "content": {
                        "image/jpeg": {"schema": binary}, "image/png": {"schema": binary}, "image/webp": {"schema": binary},
                        "multipart/form-data": {"schema": {"type": "object", "properties": {"file": binary}, "required": ["file"]}},
                    }}
                    operation["parameters"] += builder.query_parameters(method.input_type, {v.split(".")[0] for v in variables} | {body})
                else:
                    operation["parameters"] += builder.query_parameters(method.input_type, {v.split(".")[0] for v in variables})
                paths.setdefault(template, {})[verb] = operation
    builder.schemas["Error"] = {
        "type": "object",
        "properties": {"error": {"type": "object", "properties": {
            "code": {"type": "integer"}, "status": {"type": "string"}, "message": {"type": "string"},
            "fieldViolations": {"type": "array", "items": {"type": "object", "properties": {
                "field": {"type": "string"}, "reason": {"type": "string"}, "description": {"type": "string"}}}},
            "reason": {"type": "string"}, "domain": {"type": "string"},
            "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
            "retryAfterSeconds": {"type": "integer"}}}},
    }
    paths["/v1/reminders/stream"] = {"get": {
        "operationId": "StreamReminders",
        "description": "The caller's reminders as they fall due, relayed from the scheduling service as Server-Sent Events: "
                       "each an event \"reminder\" whose id is the reminder's (stable: deduplicate on it) and whose data is a "
                       "plantguide.scheduling.v1.Reminder in proto3 JSON; a comment line every 15 s keeps proxies from "
                       "closing the stream. Browsers' EventSource sends no headers, so the token may come as the query "
                       "parameter access_token instead.",
        "parameters": [{"$ref": "#/components/parameters/CollectionOwner"},
                       {"name": "access_token", "in": "query", "required": False, "schema": {"type": "string"},
                        "description": "The bearer token, for clients that cannot send the Authorization header."}],
        "responses": {
            "200": {"description": "An endless event stream", "content": {"text/event-stream": {"schema": {"type": "string"}}}},
            "default": {"description": "An error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
        },
        "security": [{"bearer": []}, {}],
    }}
    document = {
        "openapi": "3.0.3",
        "info": {"title": "PlantGuide gateway", "version": "v1",
                 "description": "Generated from Protos/plantguide/gateway/v1/gateway.proto by Scripts/generate-openapi.py."},
        "paths": dict(sorted(paths.items())),
        "components": {"schemas": dict(sorted(builder.schemas.items())),
                       "parameters": {"CollectionOwner": {
                           "name": "PlantGuide-Collection-Owner", "in": "header", "required": False, "schema": {"type": "string"},
                           "description": "Act on the collection this user shared with the caller (see ShareCollection) "
                                          "instead of the caller's own."}},
                       "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
    }
    sys.stdout.write(json.dumps(document, indent=1, sort_keys=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
