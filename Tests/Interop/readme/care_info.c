/* care_info.c: asks plantguide-caredata how to care for a species; prints the field violations of a bad request.
 * Build: protoc-c -I Protos -I /usr/include --c_out=gen $(cd Protos && find plantguide -name '*.proto') \
 *            google/protobuf/{any,descriptor,duration,field_mask,struct,timestamp}.proto
 *        gcc -I gen care_info.c $(find gen -name '*.pb-c.c') -lzmq -lprotobuf-c -o care_info
 * Run:   ./care_info tcp://127.0.0.1:7002 "Monstera deliciosa" */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "plantguide/caredata/v1/caredata.pb-c.h"
#include "plantguide/rpc/v1/error_details.pb-c.h"
#include "plantguide/rpc/v1/rpc.pb-c.h"

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: %s ENDPOINT SCIENTIFIC_NAME\n", argv[0]); return 2; }
    void *context = zmq_ctx_new();
    void *socket = zmq_socket(context, ZMQ_REQ);
    int timeout_ms = 10000, linger = 0;
    zmq_setsockopt(socket, ZMQ_RCVTIMEO, &timeout_ms, sizeof timeout_ms);
    zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
    zmq_connect(socket, argv[1]);

    /* The method's request message, packed into the envelope's payload. */
    Plantguide__Caredata__V1__GetCareInfoRequest care = PLANTGUIDE__CAREDATA__V1__GET_CARE_INFO_REQUEST__INIT;
    care.key_case = PLANTGUIDE__CAREDATA__V1__GET_CARE_INFO_REQUEST__KEY_SCIENTIFIC_NAME;
    care.scientific_name = argv[2];
    uint8_t payload[1024];
    Plantguide__Rpc__V1__RpcRequest request = PLANTGUIDE__RPC__V1__RPC_REQUEST__INIT;
    request.id = 1;
    request.method = "/plantguide.caredata.v1.CareDataService/GetCareInfo";
    request.timeout_ms = 5000;
    request.payload.data = payload;
    request.payload.len = plantguide__caredata__v1__get_care_info_request__pack(&care, payload);
    uint8_t frame[2048];
    zmq_send(socket, frame, plantguide__rpc__v1__rpc_request__pack(&request, frame), 0);

    zmq_msg_t reply;
    zmq_msg_init(&reply);
    if (zmq_msg_recv(&reply, socket, 0) < 0) { fprintf(stderr, "no answer\n"); return 1; }
    Plantguide__Rpc__V1__RpcResponse *response =
        plantguide__rpc__v1__rpc_response__unpack(NULL, zmq_msg_size(&reply), zmq_msg_data(&reply));
    int status = 0;
    if (response->status && response->status->code != PLANTGUIDE__RPC__V1__STATUS_CODE__OK) {
        /* Failed: the code, the message, and for INVALID_ARGUMENT which field was wrong. */
        printf("error %d: %s\n", response->status->code, response->status->message);
        for (size_t i = 0; i < response->status->n_details; i++) {
            Google__Protobuf__Any *detail = response->status->details[i];
            if (strcmp(detail->type_url, "type.googleapis.com/plantguide.rpc.v1.BadRequest") != 0) continue;
            Plantguide__Rpc__V1__BadRequest *bad =
                plantguide__rpc__v1__bad_request__unpack(NULL, detail->value.len, detail->value.data);
            for (size_t j = 0; bad && j < bad->n_field_violations; j++) {
                printf("field %s: %s (%s)\n", bad->field_violations[j]->field,
                       bad->field_violations[j]->description, bad->field_violations[j]->reason);
            }
            plantguide__rpc__v1__bad_request__free_unpacked(bad, NULL);
        }
        status = 1;
    } else {
        Plantguide__Caredata__V1__GetCareInfoResponse *answer = plantguide__caredata__v1__get_care_info_response__unpack(
            NULL, response->payload.len, response->payload.data);
        printf("%s: water every %u days\n", answer->care_info->scientific_name,
               answer->care_info->watering->interval_days);
        plantguide__caredata__v1__get_care_info_response__free_unpacked(answer, NULL);
    }
    plantguide__rpc__v1__rpc_response__free_unpacked(response, NULL);
    zmq_msg_close(&reply);
    zmq_close(socket);
    zmq_ctx_term(context);
    return status;
}
