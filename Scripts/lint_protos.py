#!/usr/bin/env python3
"""Checks the contract in Protos/plantguide against buf's STANDARD lint rules and the project's own.

buf itself cannot be installed here (no npm registry, no Go toolchain), so this script checks the rules from a
descriptor set that protoc writes (with source info, for comments):

  buf rules:  PACKAGE_DIRECTORY_MATCH, PACKAGE_VERSION_SUFFIX, ENUM_PASCAL_CASE, ENUM_VALUE_UPPER_SNAKE_CASE,
              ENUM_VALUE_PREFIX, ENUM_ZERO_VALUE_SUFFIX, FIELD_LOWER_SNAKE_CASE, MESSAGE_PASCAL_CASE,
              ONEOF_LOWER_SNAKE_CASE, SERVICE_PASCAL_CASE, RPC_PASCAL_CASE, RPC_REQUEST_STANDARD_NAME,
              RPC_RESPONSE_STANDARD_NAME, RPC_REQUEST_RESPONSE_UNIQUE, COMMENT_SERVICE, COMMENT_RPC.
  own rules:  NO_PROTO3_OPTIONAL (Debian 12's protoc-c 1.4 cannot compile it: use a message or a oneof for
              presence); RPC_STATES_ERRORS (every method's comment says which errors it returns, "Errors: ...").

Exceptions are listed in EXCEPTIONS with their reason. Usage: lint_protos.py DESCRIPTOR_SET [PROTO_ROOT]
Exit status 1 with one line per violation ("file:line: RULE: message"), 0 when clean.
"""
import os
import re
import sys

from google.protobuf import descriptor_pb2

# (rule, full name) pairs that are allowed on purpose.
EXCEPTIONS = {
    # The gRPC status codes keep gRPC's own names and numbers (OK = 0), as google.rpc.Code does.
    ("ENUM_VALUE_PREFIX", "plantguide.rpc.v1.StatusCode"),
    ("ENUM_ZERO_VALUE_SUFFIX", "plantguide.rpc.v1.StatusCode"),
    # The health protocol mirrors grpc.health.v1 (UNKNOWN = 0, SERVING = 1...), so that its tools understand it.
    ("ENUM_VALUE_PREFIX", "plantguide.health.v1.HealthCheckResponse.ServingStatus"),
    ("ENUM_ZERO_VALUE_SUFFIX", "plantguide.health.v1.HealthCheckResponse.ServingStatus"),
    ("RPC_REQUEST_STANDARD_NAME", "plantguide.health.v1.Health.Check"),
    ("RPC_RESPONSE_STANDARD_NAME", "plantguide.health.v1.Health.Check"),
    ("RPC_REQUEST_STANDARD_NAME", "plantguide.health.v1.Health.Watch"),
    ("RPC_RESPONSE_STANDARD_NAME", "plantguide.health.v1.Health.Watch"),
    ("RPC_REQUEST_RESPONSE_UNIQUE", "plantguide.health.v1.Health.Watch"),
    ("RPC_REQUEST_RESPONSE_UNIQUE", "plantguide.health.v1.Health.Check"),
}

PASCAL = re.compile(r"^[A-Z][A-Za-z0-9]*$")
LOWER_SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
UPPER_SNAKE = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$")


def upper_snake(name):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).upper()


class Linter:
    def __init__(self, files):
        self.files = files
        self.problems = []

    def report(self, file, path, rule, full_name, message):
        if (rule, full_name) in EXCEPTIONS:
            return
        line = self.line(file, path)
        self.problems.append(f"Protos/{file.name}:{line}: {rule}: {message}")

    @staticmethod
    def line(file, path):
        for location in file.source_code_info.location:
            if list(location.path) == path:
                return location.span[0] + 1
        return 1

    @staticmethod
    def comment(file, path):
        for location in file.source_code_info.location:
            if list(location.path) == path:
                return location.leading_comments.strip()
        return ""

    def run(self):
        for file in self.files:
            if not file.name.startswith("plantguide/"):
                continue
            self.check_package(file)
            for index, message in enumerate(file.message_type):
                self.check_message(file, message, [4, index], file.package)
            for index, enum in enumerate(file.enum_type):
                self.check_enum(file, enum, [5, index], file.package)
            for index, service in enumerate(file.service):
                self.check_service(file, service, [6, index])
        return self.problems

    def check_package(self, file):
        directory = os.path.dirname(file.name)
        if directory.replace("/", ".") != file.package:
            self.report(file, [2], "PACKAGE_DIRECTORY_MATCH", file.package,
                        f"package {file.package} is not in directory {file.package.replace('.', '/')}")
        if not re.search(r"\.v[0-9]+$", file.package):
            self.report(file, [2], "PACKAGE_VERSION_SUFFIX", file.package, f"package {file.package} has no version suffix")

    def check_message(self, file, message, path, scope):
        full = f"{scope}.{message.name}"
        if not PASCAL.match(message.name):
            self.report(file, path, "MESSAGE_PASCAL_CASE", full, f"message {full} is not PascalCase")
        for index, field in enumerate(message.field):
            if not LOWER_SNAKE.match(field.name):
                self.report(file, path + [2, index], "FIELD_LOWER_SNAKE_CASE", f"{full}.{field.name}",
                            f"field {full}.{field.name} is not lower_snake_case")
            if field.proto3_optional:
                self.report(file, path + [2, index], "NO_PROTO3_OPTIONAL", f"{full}.{field.name}",
                            f"field {full}.{field.name} is proto3 `optional`, which protoc-c 1.4 cannot compile; "
                            "use a message (e.g. plantguide.types.v1.GeoPoint) or a oneof for presence")
        for index, oneof in enumerate(message.oneof_decl):
            if not oneof.name.startswith("_") and not LOWER_SNAKE.match(oneof.name):
                self.report(file, path + [8, index], "ONEOF_LOWER_SNAKE_CASE", f"{full}.{oneof.name}",
                            f"oneof {full}.{oneof.name} is not lower_snake_case")
        for index, nested in enumerate(message.nested_type):
            if not nested.options.map_entry:
                self.check_message(file, nested, path + [3, index], full)
        for index, enum in enumerate(message.enum_type):
            self.check_enum(file, enum, path + [4, index], full)

    def check_enum(self, file, enum, path, scope):
        full = f"{scope}.{enum.name}"
        if not PASCAL.match(enum.name):
            self.report(file, path, "ENUM_PASCAL_CASE", full, f"enum {full} is not PascalCase")
        prefix = upper_snake(enum.name) + "_"
        for index, value in enumerate(enum.value):
            value_path = path + [2, index]
            if not UPPER_SNAKE.match(value.name):
                self.report(file, value_path, "ENUM_VALUE_UPPER_SNAKE_CASE", full, f"{full}.{value.name} is not UPPER_SNAKE_CASE")
            if not value.name.startswith(prefix):
                self.report(file, value_path, "ENUM_VALUE_PREFIX", full, f"{full}.{value.name} does not start with {prefix}")
            if value.number == 0 and value.name != prefix + "UNSPECIFIED":
                self.report(file, value_path, "ENUM_ZERO_VALUE_SUFFIX", full,
                            f"{full}'s zero value is {value.name}, not {prefix}UNSPECIFIED: unset must differ from a choice")

    def check_service(self, file, service, path):
        full = f"{file.package}.{service.name}"
        if not PASCAL.match(service.name):
            self.report(file, path, "SERVICE_PASCAL_CASE", full, f"service {full} is not PascalCase")
        if not self.comment(file, path):
            self.report(file, path, "COMMENT_SERVICE", full, f"service {full} has no comment")
        seen = {}
        for index, method in enumerate(service.method):
            method_full = f"{full}.{method.name}"
            method_path = path + [2, index]
            if not PASCAL.match(method.name):
                self.report(file, method_path, "RPC_PASCAL_CASE", method_full, f"method {method_full} is not PascalCase")
            request = method.input_type.rsplit(".", 1)[-1]
            response = method.output_type.rsplit(".", 1)[-1]
            if request not in (f"{method.name}Request", f"{service.name}{method.name}Request"):
                self.report(file, method_path, "RPC_REQUEST_STANDARD_NAME", method_full,
                            f"{method_full} takes {request}, not {method.name}Request")
            if response not in (f"{method.name}Response", f"{service.name}{method.name}Response"):
                self.report(file, method_path, "RPC_RESPONSE_STANDARD_NAME", method_full,
                            f"{method_full} returns {response}, not {method.name}Response")
            for type_name in (method.input_type, method.output_type):
                if type_name in seen:
                    self.report(file, method_path, "RPC_REQUEST_RESPONSE_UNIQUE", method_full,
                                f"{method_full} shares {type_name} with {seen[type_name]}")
                seen[type_name] = method_full
            comment = self.comment(file, method_path)
            if not comment:
                self.report(file, method_path, "COMMENT_RPC", method_full, f"method {method_full} has no comment")
            elif "Errors:" not in comment and "Errors: none" not in comment:
                self.report(file, method_path, "RPC_STATES_ERRORS", method_full,
                            f"the comment of {method_full} does not say which errors it returns (\"Errors: ...\")")


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    descriptors = descriptor_pb2.FileDescriptorSet()
    with open(sys.argv[1], "rb") as data:
        descriptors.ParseFromString(data.read())
    problems = Linter(descriptors.file).run()
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
