// Stands in for libx265.so.199 in the release bundle and the image. Debian's libheif links the x265 HEVC encoder
// (16 MB) although PlantGuide only decodes HEIC (with libde265): libheif asks x265 for its API only when an HEVC
// encoder is used, and this answer, none, makes that request fail with libheif's own error. Decoding is untouched.
// Built by Scripts/package: gcc -shared -fPIC -O2 -Wl,-soname,libx265.so.199 -o libx265.so.199 x265_absent.c
struct x265_api;

const struct x265_api *x265_api_get_199(int bit_depth) {
    (void)bit_depth;
    return 0;
}
