// OpenBLAS from Debian's libopenblas-dev: the matrix products of the ONNX executor.
#include <cblas.h>
