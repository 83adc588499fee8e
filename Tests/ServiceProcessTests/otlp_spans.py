#!/usr/bin/env python3
"""Prints the spans of OTLP/HTTP trace exports (ExportTraceServiceRequest bodies, one file each, as received by a
test's fake collector) as JSON lines, decoded with the opentelemetry-proto definitions:
{"service", "name", "kind", "trace_id", "span_id", "parent_span_id", "attributes", "links": [{"trace_id", "span_id"}]}."""
import json
import sys

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span


def value(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


for path in sys.argv[1:]:
    request = ExportTraceServiceRequest()
    with open(path, "rb") as body:
        request.ParseFromString(body.read())
    for resource_spans in request.resource_spans:
        resource = {a.key: value(a.value) for a in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                print(json.dumps({
                    "service": resource.get("service.name"),
                    "name": span.name,
                    "kind": Span.SpanKind.Name(span.kind),
                    "trace_id": span.trace_id.hex(),
                    "span_id": span.span_id.hex(),
                    "parent_span_id": span.parent_span_id.hex(),
                    "attributes": {a.key: value(a.value) for a in span.attributes},
                    "links": [{"trace_id": link.trace_id.hex(), "span_id": link.span_id.hex()} for link in span.links],
                }))
