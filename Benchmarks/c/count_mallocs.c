// Counts heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign) of a process, for
// Scripts/bench allocs: LD_PRELOAD it, and at exit it writes the count to $COUNT_MALLOCS_OUT (else stderr). The
// allocations of one call are the difference between a longer and a shorter run, over the difference in calls.
// A SIGTERM (how a benchmark server is stopped) writes the count too, then exits.
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static atomic_ulong allocations;

static inline void count(void) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); }

void *malloc(size_t size) { count(); return __libc_malloc(size); }
void *calloc(size_t number, size_t size) { count(); return __libc_calloc(number, size); }
void *realloc(void *pointer, size_t size) { count(); return __libc_realloc(pointer, size); }
void *aligned_alloc(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
void *memalign(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
  count();
  void *pointer = __libc_memalign(alignment, size);
  if (!pointer) return 12; /* ENOMEM */
  *out = pointer;
  return 0;
}

/* Writes the count to $COUNT_MALLOCS_OUT (else stderr) with system calls only: safe in a signal handler. */
static void write_count(void) {
  char digits[32];
  int length = 0;
  unsigned long value = (unsigned long)atomic_load(&allocations);
  char reversed[32];
  do { reversed[length++] = (char)('0' + value % 10); value /= 10; } while (value);
  for (int i = 0; i < length; i++) digits[i] = reversed[length - 1 - i];
  digits[length++] = '\n';
  const char *path = getenv("COUNT_MALLOCS_OUT");
  int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : 2;
  if (fd < 0) return;
  ssize_t written = write(fd, digits, (size_t)length);
  (void)written;
  if (path) close(fd);
}

static void on_term(int signal_number) {
  (void)signal_number;
  write_count();
  _exit(0);
}

__attribute__((constructor)) static void install(void) { signal(SIGTERM, on_term); }

__attribute__((destructor)) static void report(void) { write_count(); }
