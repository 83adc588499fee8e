// Sends junk frames to a PlantGuide service over a DEALER socket and reads whatever comes back, for measuring
// that a service's memory stays flat under hostile traffic (Scripts/bench junk). The frames are a mix of
// random bytes, truncated and bit-flipped envelopes, unknown methods, and well-formed envelopes of the
// service's methods whose payloads are random bytes.
// Usage: junk_sender ENDPOINT FRAMES METHOD...
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

static uint64_t state = 0x9e3779b97f4a7c15ULL;
static uint64_t next_random(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static size_t put_varint(uint8_t *out, uint64_t value) {
    size_t n = 0;
    while (value >= 0x80) {
        out[n++] = (uint8_t)(value | 0x80);
        value >>= 7;
    }
    out[n++] = (uint8_t)value;
    return n;
}

// An RpcRequest: id (1), method (2), timeout_ms (3), payload (5).
static size_t envelope(uint8_t *out, uint64_t id, const char *method, const uint8_t *payload, size_t payload_len) {
    size_t n = 0, method_len = strlen(method);
    out[n++] = 0x08;
    n += put_varint(out + n, id);
    out[n++] = 0x12;
    n += put_varint(out + n, method_len);
    memcpy(out + n, method, method_len);
    n += method_len;
    out[n++] = 0x18;
    n += put_varint(out + n, 2000);
    out[n++] = 0x2a;
    n += put_varint(out + n, payload_len);
    memcpy(out + n, payload, payload_len);
    return n + payload_len;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s ENDPOINT FRAMES METHOD...\n", argv[0]);
        return 2;
    }
    long frames = atol(argv[2]);
    void *context = zmq_ctx_new();
    void *socket = zmq_socket(context, ZMQ_DEALER);
    int linger = 0, hwm = 100000;
    zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(socket, ZMQ_SNDHWM, &hwm, sizeof hwm);
    zmq_setsockopt(socket, ZMQ_RCVHWM, &hwm, sizeof hwm);
    if (zmq_connect(socket, argv[1]) != 0) {
        fprintf(stderr, "cannot connect to %s\n", argv[1]);
        return 1;
    }
    uint8_t frame[4096], payload[512], reply[65536];
    long sent = 0, replies = 0, in_flight = 0;
    while (sent < frames || in_flight > 0) {
        while (sent < frames && in_flight < 256) {
            size_t payload_len = next_random() % 200, len;
            for (size_t i = 0; i < payload_len; i++) payload[i] = (uint8_t)next_random();
            const char *method = argv[3 + next_random() % (uint64_t)(argc - 3)];
            switch (next_random() % 5) {
            case 0:  // random bytes
                len = next_random() % 300;
                for (size_t i = 0; i < len; i++) frame[i] = (uint8_t)next_random();
                break;
            case 1:  // a truncated envelope
                len = envelope(frame, (uint64_t)sent, method, payload, payload_len);
                len = len > 1 ? next_random() % len : len;
                break;
            case 2: {  // an unknown method, different every time
                char unknown[64];
                snprintf(unknown, sizeof unknown, "/junk.v1.Junk/M%lu", (unsigned long)(next_random() % 1000000));
                len = envelope(frame, (uint64_t)sent, unknown, payload, payload_len);
                break;
            }
            case 3:  // a bit-flipped envelope
                len = envelope(frame, (uint64_t)sent, method, payload, payload_len);
                frame[next_random() % len] ^= (uint8_t)(1u << (next_random() % 8));
                break;
            default:  // a real method with a random payload
                len = envelope(frame, (uint64_t)sent, method, payload, payload_len);
            }
            if (zmq_send(socket, frame, len, ZMQ_DONTWAIT) < 0) break;
            sent++;
            in_flight++;
        }
        zmq_pollitem_t item = {socket, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&item, 1, sent < frames ? 0 : 200) <= 0) {
            if (sent >= frames) break;  // the rest were dropped (malformed frames get no reply)
            in_flight = in_flight > 128 ? in_flight - 128 : 0;  // dropped frames never answer: do not wait for them
            continue;
        }
        while (zmq_recv(socket, reply, sizeof reply, ZMQ_DONTWAIT) >= 0) {
            replies++;
            if (in_flight > 0) in_flight--;
        }
    }
    printf("%ld %ld\n", sent, replies);
    zmq_close(socket);
    zmq_ctx_term(context);
    return 0;
}
