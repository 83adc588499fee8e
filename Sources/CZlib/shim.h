// zlib (Debian's zlib1g-dev): gzip for the web app's assets, compressed once at start.
#include <zlib.h>
