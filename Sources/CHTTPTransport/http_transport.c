#include "http_transport.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <pthread.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *data;
    size_t length;
    size_t capacity;
    size_t limit;
    int overflowed;
} buffer;

static int append(buffer *target, const char *bytes, size_t count) {
    if (target->length + count > target->limit) {
        target->overflowed = 1;
        return 0;
    }
    if (target->length + count + 1 > target->capacity) {
        size_t capacity = target->capacity ? target->capacity : 4096;
        while (capacity < target->length + count + 1) capacity *= 2;
        char *grown = realloc(target->data, capacity);
        if (!grown) return 0;
        target->data = grown;
        target->capacity = capacity;
    }
    memcpy(target->data + target->length, bytes, count);
    target->length += count;
    target->data[target->length] = 0;
    return 1;
}

static size_t on_body(char *bytes, size_t size, size_t count, void *context) {
    return append(context, bytes, size * count) ? size * count : 0;
}

static size_t on_header(char *bytes, size_t size, size_t count, void *context) {
    buffer *headers = context;
    /* A new status line (after a 100 Continue, say) starts the final response's headers anew. */
    if (size * count >= 5 && memcmp(bytes, "HTTP/", 5) == 0) headers->length = 0;
    return append(headers, bytes, size * count) ? size * count : 0;
}

typedef struct {
    pg_http_progress report;
    void *context;
} progress_target;

static int on_progress(void *context, curl_off_t download_total, curl_off_t downloaded, curl_off_t upload_total,
                       curl_off_t uploaded) {
    progress_target *target = context;
    target->report(target->context, (long long)download_total, (long long)downloaded, (long long)upload_total,
                   (long long)uploaded);
    return 0;
}

static int ipv4_public(const unsigned char *a, int allow_loopback) {
    if (a[0] == 127) return allow_loopback;
    if (a[0] == 0 || a[0] == 10 || a[0] >= 224) return 0;                /* this network, private, multicast, reserved */
    if (a[0] == 100 && (a[1] & 0xC0) == 64) return 0;                    /* carrier-grade NAT 100.64/10 */
    if (a[0] == 169 && a[1] == 254) return 0;                            /* link-local */
    if (a[0] == 172 && (a[1] & 0xF0) == 16) return 0;                    /* private 172.16/12 */
    if (a[0] == 192 && a[1] == 168) return 0;                            /* private 192.168/16 */
    if (a[0] == 192 && a[1] == 0 && (a[2] == 0 || a[2] == 2)) return 0;  /* IETF protocol assignments, TEST-NET-1 */
    if (a[0] == 198 && (a[1] & 0xFE) == 18) return 0;                    /* benchmarking 198.18/15 */
    if (a[0] == 198 && a[1] == 51 && a[2] == 100) return 0;              /* TEST-NET-2 */
    if (a[0] == 203 && a[1] == 0 && a[2] == 113) return 0;               /* TEST-NET-3 */
    return 1;
}

int pg_http_address_allowed(const char *address, pg_http_address_policy policy) {
    if (policy == PG_HTTP_ANY_ADDRESS) return 1;
    int allow_loopback = policy == PG_HTTP_PUBLIC_OR_LOOPBACK;
    unsigned char bytes[16];
    if (inet_pton(AF_INET, address, bytes) == 1) return ipv4_public(bytes, allow_loopback);
    if (inet_pton(AF_INET6, address, bytes) != 1) return 0;
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    if (memcmp(bytes, mapped, 12) == 0) return ipv4_public(bytes + 12, allow_loopback);
    static const unsigned char loopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    if (memcmp(bytes, loopback, 16) == 0) return allow_loopback;
    if ((bytes[0] & 0xE0) != 0x20) return 0; /* only global unicast 2000::/3 (no ::, ULA, link-local, multicast) */
    if (bytes[0] == 0x20 && bytes[1] == 0x01 && bytes[2] == 0x0D && bytes[3] == 0xB8) return 0; /* documentation */
    return 1;
}

typedef struct {
    pg_http_address_policy policy;
    int refused;
} address_guard;

/* Called for each socket curl is about to open, with the address it will connect to (after name resolution):
 * refuses one the policy does not allow, before any packet leaves. */
static curl_socket_t on_open_socket(void *context, curlsocktype purpose, struct curl_sockaddr *address) {
    address_guard *guard = context;
    char text[INET6_ADDRSTRLEN] = {0};
    const struct sockaddr *peer = &address->addr;
    if (peer->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)peer)->sin_addr, text, sizeof text);
    } else if (peer->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)peer)->sin6_addr, text, sizeof text);
    }
    if (purpose != CURLSOCKTYPE_IPCXN || !pg_http_address_allowed(text, guard->policy)) {
        guard->refused = 1;
        return CURL_SOCKET_BAD;
    }
    return socket(address->family, address->socktype, address->protocol);
}

static pthread_once_t initialised = PTHREAD_ONCE_INIT;

static void initialise(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

static char default_ca_file[4096];
static pthread_once_t default_ca_file_asked = PTHREAD_ONCE_INIT;

static void ask_default_ca_file(void) {
    CURL *curl = curl_easy_init();
    char *found = NULL;
    if (curl && curl_easy_getinfo(curl, CURLINFO_CAINFO, &found) == CURLE_OK && found) {
        strncpy(default_ca_file, found, sizeof default_ca_file - 1);
    }
    if (curl) curl_easy_cleanup(curl);
}

const char *pg_http_default_ca_file(void) {
    pthread_once(&initialised, initialise);
    pthread_once(&default_ca_file_asked, ask_default_ca_file);
    return default_ca_file[0] ? default_ca_file : NULL;
}

int pg_http_perform(const char *method, const char *url, const char *const *headers, size_t header_count,
                    const void *body, size_t body_length, long timeout_ms, size_t max_body_bytes,
                    pg_http_address_policy policy, const void *ca_bundle, size_t ca_bundle_length,
                    pg_http_progress progress, void *progress_context, pg_http_result *result) {
    pthread_once(&initialised, initialise);
    memset(result, 0, sizeof *result);
    CURL *curl = curl_easy_init();
    if (!curl) {
        strncpy(result->error, "cannot create a curl handle", sizeof result->error - 1);
        return CURLE_FAILED_INIT;
    }
    buffer response_body = {.limit = max_body_bytes};
    buffer response_headers = {.limit = 1 << 20};
    struct curl_slist *list = NULL;
    for (size_t i = 0; i < header_count; i++) list = curl_slist_append(list, headers[i]);
    /* No "Expect: 100-continue" pause before bodies. */
    list = curl_slist_append(list, "Expect:");

    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response_body);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response_headers);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, result->error);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    if (ca_bundle != NULL) {
        /* Copied by curl; replaces the default bundle, so the caller includes the system's certificates. */
        struct curl_blob blob = {.data = (void *)ca_bundle, .len = ca_bundle_length, .flags = CURL_BLOB_COPY};
        curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &blob);
    }
    address_guard guard = {.policy = policy};
    if (policy != PG_HTTP_ANY_ADDRESS) {
        curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, on_open_socket);
        curl_easy_setopt(curl, CURLOPT_OPENSOCKETDATA, &guard);
    }
    if (body != NULL || strcmp(method, "GET") != 0) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_length);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body_length ? body : "");
    }
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
    progress_target target = {.report = progress, .context = progress_context};
    if (progress != NULL) {
        curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &target);
        curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    }

    CURLcode code = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result->status);
    result->timed_out = code == CURLE_OPERATION_TIMEDOUT;
    result->too_large = response_body.overflowed;
    result->refused_address = code != CURLE_OK && guard.refused;
    if (result->refused_address) {
        strncpy(result->error, "the address is not a public one (loopback, private or reserved addresses are refused)",
                sizeof result->error - 1);
    }
    if (code != CURLE_OK && result->error[0] == 0) {
        strncpy(result->error, curl_easy_strerror(code), sizeof result->error - 1);
    }
    result->body = response_body.data;
    result->body_length = response_body.length;
    result->headers = response_headers.data;
    result->headers_length = response_headers.length;
    curl_slist_free_all(list);
    curl_easy_cleanup(curl);
    return (int)code;
}

void pg_http_result_free(pg_http_result *result) {
    free(result->body);
    free(result->headers);
    result->body = NULL;
    result->headers = NULL;
}
