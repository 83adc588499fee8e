// The libzmq C API (Debian's libzmq3-dev), plus the few Linux headers the RPC layer's I/O threads use.
#include <zmq.h>
#include <sys/eventfd.h>
