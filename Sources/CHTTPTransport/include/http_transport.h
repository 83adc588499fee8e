#ifndef PLANTGUIDE_HTTP_TRANSPORT_H
#define PLANTGUIDE_HTTP_TRANSPORT_H

#include <stddef.h>

/* One HTTP exchange with libcurl's easy interface, blocking the calling thread. PlantGuide's HTTP client runs it
 * on a thread of its own: URLSession on Linux drives curl through libdispatch sources, which lose events when a
 * closed socket's descriptor number is reused at once (swift-corelibs-libdispatch#833), so a retry on a new
 * connection could hang until its time-out. */

typedef struct {
    /* The final response's status (after any 1xx), 0 when there was none. */
    long status;
    /* The final response's header lines, "Name: value\r\n" each; malloc'ed. */
    char *headers;
    size_t headers_length;
    /* The body; malloc'ed. */
    char *body;
    size_t body_length;
    /* Set when the time-out passed, when the body exceeded max_body_bytes (the transfer stops), and when the
     * address guard refused every address the name resolved to (no connection was opened). */
    int timed_out;
    int too_large;
    int refused_address;
    /* curl's description of a transport failure, "" on success. */
    char error[256];
} pg_http_result;

/* Told how far a transfer got: bytes to download and downloaded, to upload and uploaded (totals 0 while
 * unknown). Called often, on the transferring thread. */
typedef void (*pg_http_progress)(void *context, long long download_total, long long downloaded, long long upload_total,
                                 long long uploaded);

/* Which addresses a request may connect to: any; only public ones (not loopback, private, link-local, carrier-grade
 * NAT, multicast, unspecified or reserved, in IPv4 or IPv6, IPv4-mapped included), for URLs a user gave (webhooks,
 * push services), so that they cannot reach the server's own network; or public ones and loopback (tests). Each
 * address curl is about to connect to is checked, after name resolution and before the socket opens, so a name
 * that resolves to a private address is refused too, without a packet sent. */
typedef enum { PG_HTTP_ANY_ADDRESS = 0, PG_HTTP_PUBLIC_ONLY = 1, PG_HTTP_PUBLIC_OR_LOOPBACK = 2 } pg_http_address_policy;

/* Whether `address` (numeric IPv4 or IPv6) is one `policy` allows. */
int pg_http_address_allowed(const char *address, pg_http_address_policy policy);

/* The path of the CA bundle this libcurl trusts by default ("/etc/ssl/certs/ca-certificates.crt" on Debian),
 * NULL when it was built without one. */
const char *pg_http_default_ca_file(void);

/* Sends one request. `headers` are "Name: value" lines. `ca_bundle` (PEM, NULL for libcurl's default bundle)
 * holds every certificate authority trusted for https: PlantGuide passes the system's bundle and an operator's
 * own CA together. Returns 0 when a response arrived (any status), else curl's error code with `result->error`
 * set. `progress` may be NULL. Free the result with pg_http_result_free. */
int pg_http_perform(const char *method, const char *url, const char *const *headers, size_t header_count,
                    const void *body, size_t body_length, long timeout_ms, size_t max_body_bytes,
                    pg_http_address_policy policy, const void *ca_bundle, size_t ca_bundle_length,
                    pg_http_progress progress, void *progress_context, pg_http_result *result);

void pg_http_result_free(pg_http_result *result);

#endif
