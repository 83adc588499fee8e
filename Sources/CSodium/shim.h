// libsodium (Debian's libsodium-dev, also a dependency of libzmq): SHA-256 and HMAC-SHA256.
#include <sodium.h>
