/*
 * A PlantGuide RPC client in C, using only libzmq and protobuf-c (code generated from Protos/ by protoc-c at
 * test time): what any other backend needs to call a service. It calls Health/Check, Metrics/Scrape and an
 * unknown method over a REQ socket and checks the answers.
 *
 * Usage: health_client tcp://127.0.0.1:7003
 * Prints one line per check and a summary "N passed, N failed"; exits non-zero on any failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "plantguide/health/v1/health.pb-c.h"
#include "plantguide/metrics/v1/metrics.pb-c.h"
#include "plantguide/rpc/v1/rpc.pb-c.h"

static int passed = 0, failed = 0;

static void check(int ok, const char *what) {
    printf("%s %s\n", ok ? "PASS" : "FAIL", what);
    if (ok) passed++; else failed++;
}

/* Sends one RpcRequest and returns the unpacked RpcResponse (NULL on time-out or garbage). */
static Plantguide__Rpc__V1__RpcResponse *call(void *socket, uint64_t id, const char *method,
                                              const uint8_t *payload, size_t payload_len) {
    Plantguide__Rpc__V1__RpcRequest request = PLANTGUIDE__RPC__V1__RPC_REQUEST__INIT;
    request.id = id;
    request.method = (char *)method;
    request.timeout_ms = 5000;
    request.payload.data = (uint8_t *)payload;
    request.payload.len = payload_len;

    size_t size = plantguide__rpc__v1__rpc_request__get_packed_size(&request);
    uint8_t *frame = malloc(size);
    plantguide__rpc__v1__rpc_request__pack(&request, frame);
    int sent = zmq_send(socket, frame, size, 0);
    free(frame);
    if (sent < 0) return NULL;

    zmq_msg_t reply;
    zmq_msg_init(&reply);
    if (zmq_msg_recv(&reply, socket, 0) < 0) { zmq_msg_close(&reply); return NULL; }
    Plantguide__Rpc__V1__RpcResponse *response =
        plantguide__rpc__v1__rpc_response__unpack(NULL, zmq_msg_size(&reply), zmq_msg_data(&reply));
    zmq_msg_close(&reply);
    return response;
}

static int status_code(const Plantguide__Rpc__V1__RpcResponse *response) {
    return response->status ? (int)response->status->code : PLANTGUIDE__RPC__V1__STATUS_CODE__OK;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s ENDPOINT\n", argv[0]); return 2; }
    void *context = zmq_ctx_new();
    void *socket = zmq_socket(context, ZMQ_REQ);
    int timeout_ms = 10000, linger = 0;
    zmq_setsockopt(socket, ZMQ_RCVTIMEO, &timeout_ms, sizeof timeout_ms);
    zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_connect(socket, argv[1]) != 0) { fprintf(stderr, "cannot connect to %s\n", argv[1]); return 2; }

    /* Health/Check for the whole server. */
    Plantguide__Health__V1__HealthCheckRequest health_request = PLANTGUIDE__HEALTH__V1__HEALTH_CHECK_REQUEST__INIT;
    health_request.service = "";
    uint8_t health_payload[64];
    size_t health_len = plantguide__health__v1__health_check_request__pack(&health_request, health_payload);
    Plantguide__Rpc__V1__RpcResponse *response =
        call(socket, 1, "/plantguide.health.v1.Health/Check", health_payload, health_len);
    check(response != NULL && response->id == 1 && status_code(response) == PLANTGUIDE__RPC__V1__STATUS_CODE__OK,
          "Health/Check answers OK with the request's id");
    if (response) {
        Plantguide__Health__V1__HealthCheckResponse *health = plantguide__health__v1__health_check_response__unpack(
            NULL, response->payload.len, response->payload.data);
        check(health != NULL &&
                  health->status == PLANTGUIDE__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING,
              "Health/Check says SERVING");
        if (health) plantguide__health__v1__health_check_response__free_unpacked(health, NULL);
        plantguide__rpc__v1__rpc_response__free_unpacked(response, NULL);
    } else {
        check(0, "Health/Check says SERVING");
    }

    /* Metrics/Scrape: Prometheus text with the RPC counters, which now count the health check. */
    response = call(socket, 2, "/plantguide.metrics.v1.Metrics/Scrape", NULL, 0);
    int metrics_ok = 0;
    if (response && response->id == 2 && status_code(response) == PLANTGUIDE__RPC__V1__STATUS_CODE__OK) {
        Plantguide__Metrics__V1__ScrapeResponse *scrape =
            plantguide__metrics__v1__scrape_response__unpack(NULL, response->payload.len, response->payload.data);
        metrics_ok = scrape != NULL && strstr(scrape->text, "plantguide_rpc_server_handled_total") != NULL &&
                     strstr(scrape->text, "/plantguide.health.v1.Health/Check") != NULL;
        if (scrape) plantguide__metrics__v1__scrape_response__free_unpacked(scrape, NULL);
    }
    check(metrics_ok, "Metrics/Scrape returns Prometheus text counting the health check");
    if (response) plantguide__rpc__v1__rpc_response__free_unpacked(response, NULL);

    /* An unknown method. */
    response = call(socket, 3, "/plantguide.nope.v1.Nope/Missing", NULL, 0);
    check(response != NULL && response->id == 3 &&
              status_code(response) == PLANTGUIDE__RPC__V1__STATUS_CODE__UNIMPLEMENTED && response->status &&
              strstr(response->status->message, "/plantguide.nope.v1.Nope/Missing") != NULL,
          "an unknown method gets UNIMPLEMENTED naming it");
    if (response) plantguide__rpc__v1__rpc_response__free_unpacked(response, NULL);

    zmq_close(socket);
    zmq_ctx_term(context);
    printf("health_client: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
