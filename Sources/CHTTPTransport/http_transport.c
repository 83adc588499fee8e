#include "http_transport.h"

#include <curl/curl.h>
#include <pthread.h>
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

static pthread_once_t initialised = PTHREAD_ONCE_INIT;

static void initialise(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

int pg_http_perform(const char *method, const char *url, const char *const *headers, size_t header_count,
                    const void *body, size_t body_length, long timeout_ms, size_t max_body_bytes,
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
