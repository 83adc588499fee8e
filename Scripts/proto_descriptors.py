"""Reading what protoc's descriptor sets carry beyond what the Python runtime decodes: custom options and the
google.api.http annotation, which arrive as unknown fields of MethodOptions. Shared by
generate-method-descriptors.py and generate-openapi.py."""

IDEMPOTENT_FIELD = 50710  # plantguide.rpc.v1.idempotent, see Protos/plantguide/rpc/v1/options.proto
HTTP_FIELD = 72295728  # google.api.http, see Protos/google/api/annotations.proto
HTTP_VERBS = {2: "GET", 3: "PUT", 4: "POST", 5: "DELETE", 6: "PATCH"}


def read_varint(data, i):
    value, shift = 0, 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, i


def fields(data):
    """The (field number, value) pairs of a serialized message: ints for varints, bytes for length-delimited."""
    i = 0
    while i < len(data):
        key, i = read_varint(data, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, i = read_varint(data, i)
            yield field, value
        elif wire == 1:
            i += 8
        elif wire == 2:
            length, i = read_varint(data, i)
            yield field, data[i:i + length]
            i += length
        elif wire == 5:
            i += 4
        else:
            raise ValueError("unexpected wire type %d" % wire)


def is_idempotent(options):
    """Whether MethodOptions carry (plantguide.rpc.v1.idempotent) = true."""
    return any(field == IDEMPOTENT_FIELD and value != 0 for field, value in fields(options.SerializeToString()))


def http_rule(options):
    """The method's google.api.http binding as (verb, path template, body, response body), verb upper-case; None
    without one."""
    for field, value in fields(options.SerializeToString()):
        if field != HTTP_FIELD:
            continue
        verb, path, body, response_body = None, None, "", ""
        for rule_field, rule_value in fields(value):
            if rule_field in HTTP_VERBS:
                verb, path = HTTP_VERBS[rule_field], rule_value.decode()
            elif rule_field == 7:
                body = rule_value.decode()
            elif rule_field == 12:
                response_body = rule_value.decode()
        if verb:
            return verb, path, body, response_body
    return None
