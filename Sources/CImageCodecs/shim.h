// Debian's image codecs: libjpeg-turbo's TurboJPEG API (libturbojpeg0-dev), libpng 1.6 (libpng-dev), libwebp
// (libwebp-dev) and libheif (libheif-dev: HEIC, the format iPhones save photos in, with libde265 and x265).
#include <turbojpeg.h>
#include <png.h>
#include <webp/decode.h>
#include <webp/encode.h>
#include <libheif/heif.h>
