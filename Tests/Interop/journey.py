#!/usr/bin/env python3
"""Another backend's journey through PlantGuide, in Python with pyzmq and protobuf only (modules generated from
every .proto in Protos/ by protoc at test time): the same steps as journey_client.c, plus a retry hint.

Usage: journey.py GENERATED_DIR COLLECTION_ENDPOINT CAREDATA_ENDPOINT SCHEDULING_ENDPOINT
Prints one "PASS ..." or "FAIL ..." line per check; exits non-zero on any failure.
"""
import itertools
import sys

import zmq

sys.path.insert(0, sys.argv[1])
from plantguide.caredata.v1 import caredata_pb2  # noqa: E402
from plantguide.collection.v1 import collection_pb2, collection_types_pb2  # noqa: E402
from plantguide.rpc.v1 import error_details_pb2, rpc_pb2  # noqa: E402
from plantguide.scheduling.v1 import scheduling_pb2  # noqa: E402

results = {"passed": 0, "failed": 0}


def check(ok, what):
    print(("PASS " if ok else "FAIL ") + what)
    results["passed" if ok else "failed"] += 1


class Client:
    """Calls one service: a DEALER socket, replies matched by id, the caller's user id in the metadata."""

    ids = itertools.count(1)

    def __init__(self, context, endpoint, user="python-backend"):
        self.socket = context.socket(zmq.DEALER)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.setsockopt(zmq.RCVTIMEO, 15000)
        self.socket.connect(endpoint)
        self.user = user

    def call(self, method, request, reply_type):
        """Returns (status, reply): status is a plantguide.rpc.v1.Status (code OK when absent)."""
        envelope = rpc_pb2.RpcRequest(id=next(self.ids), method=method, timeout_ms=10000,
                                      metadata={"plantguide-user-id": self.user},
                                      payload=request.SerializeToString())
        self.socket.send(envelope.SerializeToString())
        while True:
            response = rpc_pb2.RpcResponse.FromString(self.socket.recv())
            if response.id == envelope.id:
                break
        if response.HasField("status") and response.status.code != rpc_pb2.OK:
            return response.status, None
        return rpc_pb2.Status(code=rpc_pb2.OK), reply_type.FromString(response.payload)


def field_violations(status):
    """The BadRequest detail's violations as (field, reason) pairs."""
    for detail in status.details:
        bad = error_details_pb2.BadRequest()
        if detail.Unpack(bad):
            return [(violation.field, violation.reason) for violation in bad.field_violations]
    return []


def main():
    context = zmq.Context()
    collection = Client(context, sys.argv[2])
    caredata = Client(context, sys.argv[3])
    scheduling = Client(context, sys.argv[4])
    plants = "/plantguide.collection.v1.CollectionService/"
    schedules = "/plantguide.scheduling.v1.SchedulingService/"

    plant = collection_types_pb2.Plant(id="py-plant-1", scientific_name="Ficus lyrata", custom_name="Fiddle",
                                       location="Hall")
    status, added = collection.call(plants + "AddPlant", collection_pb2.AddPlantRequest(plant=plant),
                                    collection_pb2.AddPlantResponse)
    check(added is not None and added.created and added.plant.HasField("added_at"), "AddPlant stores the plant")

    status, found = collection.call(plants + "ListPlants", collection_pb2.ListPlantsRequest(query="fiddle"),
                                    collection_pb2.ListPlantsResponse)
    check(found is not None and [p.id for p in found.plants] == ["py-plant-1"], "ListPlants with a query finds it")

    renamed = collection_types_pb2.Plant(id="py-plant-1", custom_name="Big Fiddle", location="not in the mask")
    update = collection_pb2.UpdatePlantRequest(plant=renamed)
    update.update_mask.paths.append("custom_name")
    status, updated = collection.call(plants + "UpdatePlant", update, collection_pb2.UpdatePlantResponse)
    check(updated is not None and updated.plant.custom_name == "Big Fiddle" and updated.plant.location == "Hall",
          "UpdatePlant with a field mask changes custom_name and keeps location")

    status, care = caredata.call("/plantguide.caredata.v1.CareDataService/GetCareInfo",
                                 caredata_pb2.GetCareInfoRequest(scientific_name="Ficus lyrata"),
                                 caredata_pb2.GetCareInfoResponse)
    check(care is not None and care.care_info.watering.interval_days > 0, "GetCareInfo answers a watering interval")

    schedule = scheduling_pb2.Schedule(plant_id="py-plant-1", plant_name="Big Fiddle (Ficus lyrata)",
                                       care_info=care.care_info if care else None)
    status, put = scheduling.call(schedules + "PutSchedule", scheduling_pb2.PutScheduleRequest(schedule=schedule),
                                  scheduling_pb2.PutScheduleResponse)
    check(put is not None and len(put.tasks) > 0, "PutSchedule plans tasks")

    tasks_request = scheduling_pb2.ListTasksRequest(plant_id="py-plant-1")
    status, tasks = scheduling.call(schedules + "ListTasks", tasks_request, scheduling_pb2.ListTasksResponse)
    check(tasks is not None and any(t.type == scheduling_pb2.TASK_TYPE_WATERING for t in tasks.tasks),
          "ListTasks lists the plant's watering tasks")

    status, _ = collection.call(plants + "AddPlant",
                                collection_pb2.AddPlantRequest(plant=collection_types_pb2.Plant(id="py-plant-2")),
                                collection_pb2.AddPlantResponse)
    check(status.code == rpc_pb2.INVALID_ARGUMENT, "a plant without a name is INVALID_ARGUMENT")
    check(field_violations(status) == [("plant.scientific_name", "REQUIRED")],
          "its BadRequest detail names plant.scientific_name, reason REQUIRED")

    status, deleted = collection.call(plants + "DeletePlant", collection_pb2.DeletePlantRequest(id="py-plant-1"),
                                      collection_pb2.DeletePlantResponse)
    check(deleted is not None and deleted.deleted, "DeletePlant deletes it")
    status, unscheduled = scheduling.call(schedules + "DeletePlantSchedules",
                                          scheduling_pb2.DeletePlantSchedulesRequest(plant_id="py-plant-1"),
                                          scheduling_pb2.DeletePlantSchedulesResponse)
    check(unscheduled is not None and unscheduled.tasks_deleted > 0, "DeletePlantSchedules deletes its tasks")
    status, _ = collection.call(plants + "GetPlant", collection_pb2.GetPlantRequest(id="py-plant-1"),
                                collection_pb2.GetPlantResponse)
    check(status.code == rpc_pb2.NOT_FOUND, "GetPlant afterwards is NOT_FOUND")
    status, tasks = scheduling.call(schedules + "ListTasks", tasks_request, scheduling_pb2.ListTasksResponse)
    check(tasks is not None and len(tasks.tasks) == 0, "ListTasks afterwards lists no task of the plant")

    anonymous = Client(context, sys.argv[2], user="")
    status, _ = anonymous.call(plants + "GetPlant", collection_pb2.GetPlantRequest(id="x"), collection_pb2.GetPlantResponse)
    check(status.code == rpc_pb2.UNAUTHENTICATED, "a call without a user id is UNAUTHENTICATED")

    print(f"journey.py: {results['passed']} passed, {results['failed']} failed")
    return 0 if results["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
