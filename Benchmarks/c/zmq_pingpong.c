/*
 * Raw libzmq ping-pong: the baseline of Scripts/bench rpc. No envelope, no protobuf: the least any RPC layer
 * over ZeroMQ must cost.
 *
 *   zmq_pingpong server ENDPOINT                         ROUTER that echoes every message
 *   zmq_pingpong client ENDPOINT PAYLOAD INFLIGHT SECONDS WARMUP
 *                                                        one DEALER keeping INFLIGHT messages in flight;
 *                                                        prints a JSON result line like plantguide-bench
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int compare(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int serve(const char *endpoint) {
    void *context = zmq_ctx_new();
    void *socket = zmq_socket(context, ZMQ_ROUTER);
    int hwm = 100000;
    zmq_setsockopt(socket, ZMQ_SNDHWM, &hwm, sizeof hwm);
    zmq_setsockopt(socket, ZMQ_RCVHWM, &hwm, sizeof hwm);
    if (zmq_bind(socket, endpoint) != 0) { perror("bind"); return 1; }
    printf("%s\n", endpoint);
    fflush(stdout);
    zmq_msg_t identity, body;
    for (;;) {
        zmq_msg_init(&identity);
        zmq_msg_init(&body);
        if (zmq_msg_recv(&identity, socket, 0) < 0 || zmq_msg_recv(&body, socket, 0) < 0) break;
        zmq_msg_send(&identity, socket, ZMQ_SNDMORE);
        zmq_msg_send(&body, socket, 0);
    }
    return 0;
}

/* Runs the closed loop for `seconds`; records latencies when `samples` is not NULL. Returns the call count. */
static size_t load(void *socket, size_t payload, int inflight, double seconds, int64_t *samples, size_t capacity) {
    char *buffer = calloc(1, payload < 16 ? 16 : payload);
    size_t count = 0;
    int64_t end = now_ns() + (int64_t)(seconds * 1e9);
    for (int i = 0; i < inflight; i++) {
        int64_t sent = now_ns();
        memcpy(buffer, &sent, sizeof sent);
        zmq_send(socket, buffer, payload < 16 ? 16 : payload, 0);
    }
    int outstanding = inflight;
    zmq_msg_t reply;
    while (outstanding > 0) {
        zmq_msg_init(&reply);
        if (zmq_msg_recv(&reply, socket, 0) < 0) break;
        int64_t sent;
        memcpy(&sent, zmq_msg_data(&reply), sizeof sent);
        zmq_msg_close(&reply);
        int64_t t = now_ns();
        if (samples && count < capacity) samples[count] = t - sent;
        count++;
        outstanding--;
        if (t < end) {
            memcpy(buffer, &t, sizeof t);
            zmq_send(socket, buffer, payload < 16 ? 16 : payload, 0);
            outstanding++;
        }
    }
    free(buffer);
    return count;
}

static int client(const char *endpoint, size_t payload, int inflight, double seconds, double warmup) {
    void *context = zmq_ctx_new();
    void *socket = zmq_socket(context, ZMQ_DEALER);
    int hwm = 100000;
    zmq_setsockopt(socket, ZMQ_SNDHWM, &hwm, sizeof hwm);
    zmq_setsockopt(socket, ZMQ_RCVHWM, &hwm, sizeof hwm);
    zmq_connect(socket, endpoint);
    load(socket, payload, inflight, warmup, NULL, 0);
    size_t capacity = 20000000;
    int64_t *samples = malloc(capacity * sizeof *samples);
    int64_t started = now_ns();
    size_t count = load(socket, payload, inflight, seconds, samples, capacity);
    double elapsed = (now_ns() - started) / 1e9;
    size_t n = count < capacity ? count : capacity;
    qsort(samples, n, sizeof *samples, compare);
#define P(p) (n ? samples[(size_t)((double)n * (p)) < n ? (size_t)((double)n * (p)) : n - 1] / 1000.0 : 0)
    printf("{\"impl\":\"c-zmq\",\"payload\":%zu,\"inflight\":%d,\"calls\":%zu,\"seconds\":%.3f,"
           "\"p50_us\":%.1f,\"p99_us\":%.1f,\"p999_us\":%.1f}\n",
           payload, inflight, count, elapsed, P(0.5), P(0.99), P(0.999));
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "server") == 0) return serve(argv[2]);
    if (argc == 7 && strcmp(argv[1], "client") == 0)
        return client(argv[2], (size_t)atol(argv[3]), atoi(argv[4]), atof(argv[5]), atof(argv[6]));
    fprintf(stderr, "usage: %s server ENDPOINT | client ENDPOINT PAYLOAD INFLIGHT SECONDS WARMUP\n", argv[0]);
    return 2;
}
