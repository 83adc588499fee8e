// Debian's image codecs: libjpeg-turbo's TurboJPEG API (libturbojpeg0-dev), libpng 1.6 (libpng-dev) and libwebp
// (libwebp-dev).
#include <turbojpeg.h>
#include <png.h>
#include <webp/decode.h>
#include <webp/encode.h>
