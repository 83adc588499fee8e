# care_info.py: asks plantguide-caredata how to care for a species; prints the field violations of a bad request.
# Generate: mkdir -p gen && protoc -I Protos --python_out=gen $(cd Protos && find plantguide -name '*.proto')
# Run:      python3 care_info.py gen tcp://127.0.0.1:7002 "Monstera deliciosa"
import sys

import zmq

sys.path.insert(0, sys.argv[1])
from plantguide.caredata.v1 import caredata_pb2  # noqa: E402
from plantguide.rpc.v1 import error_details_pb2, rpc_pb2  # noqa: E402

socket = zmq.Context().socket(zmq.REQ)
socket.setsockopt(zmq.RCVTIMEO, 10000)
socket.connect(sys.argv[2])
care = caredata_pb2.GetCareInfoRequest(scientific_name=sys.argv[3])
request = rpc_pb2.RpcRequest(id=1, method="/plantguide.caredata.v1.CareDataService/GetCareInfo", timeout_ms=5000,
                             payload=care.SerializeToString())
socket.send(request.SerializeToString())
response = rpc_pb2.RpcResponse.FromString(socket.recv())
if response.status.code != rpc_pb2.OK:
    print(f"error {response.status.code}: {response.status.message}")
    for detail in response.status.details:
        bad = error_details_pb2.BadRequest()
        if detail.Unpack(bad):
            for violation in bad.field_violations:
                print(f"field {violation.field}: {violation.description} ({violation.reason})")
    sys.exit(1)
answer = caredata_pb2.GetCareInfoResponse.FromString(response.payload)
print(f"{answer.care_info.scientific_name}: water every {answer.care_info.watering.interval_days} days")
