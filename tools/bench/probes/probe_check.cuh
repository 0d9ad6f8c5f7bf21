// Shared by the nvcc-built probes in this folder that call the driver API: a checked call, which
// names the call and the driver's error and ends the probe.
#pragma once

#include <cuda.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_CU(call)                                                                        \
  do {                                                                                        \
    CUresult status_ = (call);                                                                \
    if (status_ != CUDA_SUCCESS) {                                                            \
      const char* name_ = nullptr;                                                            \
      cuGetErrorName(status_, &name_);                                                        \
      std::fprintf(stderr, "line %d: %s: %s\n", __LINE__, #call, name_ ? name_ : "?");        \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)
