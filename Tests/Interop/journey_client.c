/*
 * Another backend's journey through PlantGuide, in C with libzmq and protobuf-c only (code generated from every
 * .proto in Protos/ by protoc-c at test time): add a plant to the collection, find it, rename it, get its care
 * info, put a care schedule and list its tasks, read the field violation of a bad request, then delete the plant
 * and its schedule.
 *
 * Usage: journey_client COLLECTION_ENDPOINT CAREDATA_ENDPOINT SCHEDULING_ENDPOINT
 * Prints one "PASS ..." or "FAIL ..." line per check; exits non-zero on any failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "plantguide/caredata/v1/caredata.pb-c.h"
#include "plantguide/collection/v1/collection.pb-c.h"
#include "plantguide/rpc/v1/error_details.pb-c.h"
#include "plantguide/rpc/v1/rpc.pb-c.h"
#include "plantguide/scheduling/v1/scheduling.pb-c.h"

static int passed = 0, failed = 0;

static int check(int ok, const char *what) {
    printf("%s %s\n", ok ? "PASS" : "FAIL", what);
    if (ok) passed++; else failed++;
    return ok;
}

/* One call's outcome: the status code and message, and the reply message unpacked (NULL unless OK). */
typedef struct {
    int code;
    char message[512];
    Plantguide__Rpc__V1__RpcResponse *response;
    ProtobufCMessage *reply;
} Outcome;

static void *connect_to(void *context, const char *endpoint) {
    void *socket = zmq_socket(context, ZMQ_REQ);
    int timeout_ms = 15000, linger = 0;
    zmq_setsockopt(socket, ZMQ_RCVTIMEO, &timeout_ms, sizeof timeout_ms);
    zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_connect(socket, endpoint) != 0) {
        fprintf(stderr, "cannot connect to %s\n", endpoint);
        exit(2);
    }
    return socket;
}

/* Calls `method` with `request` as the user "c-backend" (what the gateway would set after authenticating). */
static Outcome call(void *socket, const char *method, const ProtobufCMessage *request,
                    const ProtobufCMessageDescriptor *reply_type) {
    static uint64_t next_id = 1;
    Outcome outcome = {.code = -1};
    size_t payload_len = protobuf_c_message_get_packed_size(request);
    uint8_t *payload = malloc(payload_len ? payload_len : 1);
    protobuf_c_message_pack(request, payload);

    Plantguide__Rpc__V1__RpcRequest__MetadataEntry user = PLANTGUIDE__RPC__V1__RPC_REQUEST__METADATA_ENTRY__INIT;
    user.key = "plantguide-user-id";
    user.value = "c-backend";
    Plantguide__Rpc__V1__RpcRequest__MetadataEntry *metadata[] = {&user};
    Plantguide__Rpc__V1__RpcRequest envelope = PLANTGUIDE__RPC__V1__RPC_REQUEST__INIT;
    envelope.id = next_id++;
    envelope.method = (char *)method;
    envelope.timeout_ms = 10000;
    envelope.n_metadata = 1;
    envelope.metadata = metadata;
    envelope.payload.data = payload;
    envelope.payload.len = payload_len;

    size_t frame_len = plantguide__rpc__v1__rpc_request__get_packed_size(&envelope);
    uint8_t *frame = malloc(frame_len);
    plantguide__rpc__v1__rpc_request__pack(&envelope, frame);
    int sent = zmq_send(socket, frame, frame_len, 0);
    free(frame);
    free(payload);
    if (sent < 0) return outcome;

    zmq_msg_t reply;
    zmq_msg_init(&reply);
    if (zmq_msg_recv(&reply, socket, 0) >= 0) {
        outcome.response = plantguide__rpc__v1__rpc_response__unpack(NULL, zmq_msg_size(&reply), zmq_msg_data(&reply));
    }
    zmq_msg_close(&reply);
    if (!outcome.response || outcome.response->id != envelope.id) return outcome;
    Plantguide__Rpc__V1__Status *status = outcome.response->status;
    outcome.code = status ? (int)status->code : PLANTGUIDE__RPC__V1__STATUS_CODE__OK;
    snprintf(outcome.message, sizeof outcome.message, "%s", status ? status->message : "");
    if (outcome.code == PLANTGUIDE__RPC__V1__STATUS_CODE__OK) {
        outcome.reply = protobuf_c_message_unpack(reply_type, NULL, outcome.response->payload.len,
                                                  outcome.response->payload.data);
    }
    return outcome;
}

static void release(Outcome *outcome) {
    if (outcome->reply) protobuf_c_message_free_unpacked(outcome->reply, NULL);
    if (outcome->response) plantguide__rpc__v1__rpc_response__free_unpacked(outcome->response, NULL);
    outcome->reply = NULL;
    outcome->response = NULL;
}

/* The first field violation of a failed call's BadRequest detail, or NULL. Valid until the outcome is released;
 * the caller frees the returned BadRequest. */
static Plantguide__Rpc__V1__BadRequest *bad_request(const Outcome *outcome) {
    if (!outcome->response || !outcome->response->status) return NULL;
    Plantguide__Rpc__V1__Status *status = outcome->response->status;
    for (size_t i = 0; i < status->n_details; i++) {
        Google__Protobuf__Any *detail = status->details[i];
        if (strcmp(detail->type_url, "type.googleapis.com/plantguide.rpc.v1.BadRequest") == 0) {
            return plantguide__rpc__v1__bad_request__unpack(NULL, detail->value.len, detail->value.data);
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s COLLECTION CAREDATA SCHEDULING\n", argv[0]);
        return 2;
    }
    void *context = zmq_ctx_new();
    void *collection = connect_to(context, argv[1]);
    void *caredata = connect_to(context, argv[2]);
    void *scheduling = connect_to(context, argv[3]);

    /* Add a plant. */
    Plantguide__Collection__V1__Plant plant = PLANTGUIDE__COLLECTION__V1__PLANT__INIT;
    plant.id = "c-plant-1";
    plant.scientific_name = "Monstera deliciosa";
    plant.custom_name = "Monty";
    plant.location = "Living room";
    Plantguide__Collection__V1__AddPlantRequest add = PLANTGUIDE__COLLECTION__V1__ADD_PLANT_REQUEST__INIT;
    add.plant = &plant;
    Outcome added = call(collection, "/plantguide.collection.v1.CollectionService/AddPlant", &add.base,
                         &plantguide__collection__v1__add_plant_response__descriptor);
    Plantguide__Collection__V1__AddPlantResponse *add_reply = (Plantguide__Collection__V1__AddPlantResponse *)added.reply;
    check(add_reply && add_reply->created && add_reply->plant && add_reply->plant->added_at,
          "AddPlant stores the plant and stamps added_at");
    release(&added);

    /* Find it by a word of its name. */
    Plantguide__Collection__V1__ListPlantsRequest list = PLANTGUIDE__COLLECTION__V1__LIST_PLANTS_REQUEST__INIT;
    list.query = "monty";
    Outcome listed = call(collection, "/plantguide.collection.v1.CollectionService/ListPlants", &list.base,
                          &plantguide__collection__v1__list_plants_response__descriptor);
    Plantguide__Collection__V1__ListPlantsResponse *list_reply = (Plantguide__Collection__V1__ListPlantsResponse *)listed.reply;
    check(list_reply && list_reply->n_plants == 1 && strcmp(list_reply->plants[0]->id, "c-plant-1") == 0 &&
              list_reply->total_matching == 1,
          "ListPlants with a query finds it");
    release(&listed);

    /* Rename it: only the fields in the mask change. */
    Plantguide__Collection__V1__Plant renamed = PLANTGUIDE__COLLECTION__V1__PLANT__INIT;
    renamed.id = "c-plant-1";
    renamed.custom_name = "Big Monty";
    renamed.location = "ignored, not in the mask";
    char *paths[] = {"custom_name"};
    Google__Protobuf__FieldMask mask = GOOGLE__PROTOBUF__FIELD_MASK__INIT;
    mask.n_paths = 1;
    mask.paths = paths;
    Plantguide__Collection__V1__UpdatePlantRequest update = PLANTGUIDE__COLLECTION__V1__UPDATE_PLANT_REQUEST__INIT;
    update.plant = &renamed;
    update.update_mask = &mask;
    Outcome updated = call(collection, "/plantguide.collection.v1.CollectionService/UpdatePlant", &update.base,
                           &plantguide__collection__v1__update_plant_response__descriptor);
    Plantguide__Collection__V1__UpdatePlantResponse *update_reply = (Plantguide__Collection__V1__UpdatePlantResponse *)updated.reply;
    check(update_reply && update_reply->plant && strcmp(update_reply->plant->custom_name, "Big Monty") == 0 &&
              strcmp(update_reply->plant->location, "Living room") == 0,
          "UpdatePlant with a field mask changes custom_name and keeps location");
    release(&updated);

    /* Care info from the offline catalog. */
    Plantguide__Caredata__V1__GetCareInfoRequest care_request = PLANTGUIDE__CAREDATA__V1__GET_CARE_INFO_REQUEST__INIT;
    care_request.key_case = PLANTGUIDE__CAREDATA__V1__GET_CARE_INFO_REQUEST__KEY_SCIENTIFIC_NAME;
    care_request.scientific_name = "monstera deliciosa";
    Outcome cared = call(caredata, "/plantguide.caredata.v1.CareDataService/GetCareInfo", &care_request.base,
                         &plantguide__caredata__v1__get_care_info_response__descriptor);
    Plantguide__Caredata__V1__GetCareInfoResponse *care_reply = (Plantguide__Caredata__V1__GetCareInfoResponse *)cared.reply;
    check(care_reply && care_reply->care_info && care_reply->care_info->watering &&
              care_reply->care_info->watering->interval_days > 0,
          "GetCareInfo answers care info with a watering interval");

    /* A schedule from that care info, and its tasks. */
    Plantguide__Scheduling__V1__Schedule schedule = PLANTGUIDE__SCHEDULING__V1__SCHEDULE__INIT;
    schedule.plant_id = "c-plant-1";
    schedule.plant_name = "Big Monty (Monstera deliciosa)";
    schedule.care_info = care_reply ? care_reply->care_info : NULL;
    Plantguide__Scheduling__V1__PutScheduleRequest put = PLANTGUIDE__SCHEDULING__V1__PUT_SCHEDULE_REQUEST__INIT;
    put.schedule = &schedule;
    Outcome scheduled = call(scheduling, "/plantguide.scheduling.v1.SchedulingService/PutSchedule", &put.base,
                             &plantguide__scheduling__v1__put_schedule_response__descriptor);
    Plantguide__Scheduling__V1__PutScheduleResponse *put_reply = (Plantguide__Scheduling__V1__PutScheduleResponse *)scheduled.reply;
    check(put_reply && put_reply->n_tasks > 0, "PutSchedule plans tasks");
    release(&scheduled);
    release(&cared);

    Plantguide__Scheduling__V1__ListTasksRequest tasks = PLANTGUIDE__SCHEDULING__V1__LIST_TASKS_REQUEST__INIT;
    tasks.plant_id = "c-plant-1";
    Outcome listed_tasks = call(scheduling, "/plantguide.scheduling.v1.SchedulingService/ListTasks", &tasks.base,
                                &plantguide__scheduling__v1__list_tasks_response__descriptor);
    Plantguide__Scheduling__V1__ListTasksResponse *tasks_reply = (Plantguide__Scheduling__V1__ListTasksResponse *)listed_tasks.reply;
    int watering = 0;
    for (size_t i = 0; tasks_reply && i < tasks_reply->n_tasks; i++) {
        watering += tasks_reply->tasks[i]->type == PLANTGUIDE__SCHEDULING__V1__TASK_TYPE__TASK_TYPE_WATERING &&
                    strcmp(tasks_reply->tasks[i]->plant_id, "c-plant-1") == 0;
    }
    check(watering > 0, "ListTasks lists the plant's watering tasks");
    release(&listed_tasks);

    /* A bad request: the field violation says which field and why. */
    Plantguide__Collection__V1__Plant nameless = PLANTGUIDE__COLLECTION__V1__PLANT__INIT;
    nameless.id = "c-plant-2";
    Plantguide__Collection__V1__AddPlantRequest bad = PLANTGUIDE__COLLECTION__V1__ADD_PLANT_REQUEST__INIT;
    bad.plant = &nameless;
    Outcome refused = call(collection, "/plantguide.collection.v1.CollectionService/AddPlant", &bad.base,
                           &plantguide__collection__v1__add_plant_response__descriptor);
    check(refused.code == PLANTGUIDE__RPC__V1__STATUS_CODE__INVALID_ARGUMENT, "a plant without a name is INVALID_ARGUMENT");
    Plantguide__Rpc__V1__BadRequest *violations = bad_request(&refused);
    check(violations && violations->n_field_violations == 1 &&
              strcmp(violations->field_violations[0]->field, "plant.scientific_name") == 0 &&
              strcmp(violations->field_violations[0]->reason, "REQUIRED") == 0,
          "its BadRequest detail names plant.scientific_name, reason REQUIRED");
    if (violations) plantguide__rpc__v1__bad_request__free_unpacked(violations, NULL);
    release(&refused);

    /* Delete the plant and its schedule; nothing is left. */
    Plantguide__Collection__V1__DeletePlantRequest remove = PLANTGUIDE__COLLECTION__V1__DELETE_PLANT_REQUEST__INIT;
    remove.id = "c-plant-1";
    Outcome removed = call(collection, "/plantguide.collection.v1.CollectionService/DeletePlant", &remove.base,
                           &plantguide__collection__v1__delete_plant_response__descriptor);
    Plantguide__Collection__V1__DeletePlantResponse *remove_reply = (Plantguide__Collection__V1__DeletePlantResponse *)removed.reply;
    check(remove_reply && remove_reply->deleted, "DeletePlant deletes it");
    release(&removed);
    Plantguide__Scheduling__V1__DeletePlantSchedulesRequest unschedule =
        PLANTGUIDE__SCHEDULING__V1__DELETE_PLANT_SCHEDULES_REQUEST__INIT;
    unschedule.plant_id = "c-plant-1";
    Outcome unscheduled = call(scheduling, "/plantguide.scheduling.v1.SchedulingService/DeletePlantSchedules",
                               &unschedule.base, &plantguide__scheduling__v1__delete_plant_schedules_response__descriptor);
    Plantguide__Scheduling__V1__DeletePlantSchedulesResponse *unschedule_reply =
        (Plantguide__Scheduling__V1__DeletePlantSchedulesResponse *)unscheduled.reply;
    check(unschedule_reply && unschedule_reply->tasks_deleted > 0, "DeletePlantSchedules deletes its tasks");
    release(&unscheduled);

    Plantguide__Collection__V1__GetPlantRequest get = PLANTGUIDE__COLLECTION__V1__GET_PLANT_REQUEST__INIT;
    get.id = "c-plant-1";
    Outcome gone = call(collection, "/plantguide.collection.v1.CollectionService/GetPlant", &get.base,
                        &plantguide__collection__v1__get_plant_response__descriptor);
    check(gone.code == PLANTGUIDE__RPC__V1__STATUS_CODE__NOT_FOUND, "GetPlant afterwards is NOT_FOUND");
    release(&gone);
    Outcome no_tasks = call(scheduling, "/plantguide.scheduling.v1.SchedulingService/ListTasks", &tasks.base,
                            &plantguide__scheduling__v1__list_tasks_response__descriptor);
    tasks_reply = (Plantguide__Scheduling__V1__ListTasksResponse *)no_tasks.reply;
    check(tasks_reply && tasks_reply->n_tasks == 0, "ListTasks afterwards lists no task of the plant");
    release(&no_tasks);

    zmq_close(collection);
    zmq_close(caredata);
    zmq_close(scheduling);
    zmq_ctx_term(context);
    printf("journey_client: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
