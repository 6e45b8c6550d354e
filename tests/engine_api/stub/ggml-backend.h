// TEST DOUBLE: not ggml's ggml-backend.h (see llama.h beside it).
#pragma once
#include "ggml.h"

extern "C" {
typedef struct ggml_backend_buffer_type* ggml_backend_buffer_type_t;
typedef struct ggml_backend* ggml_backend_t;
typedef struct ggml_backend_reg* ggml_backend_reg_t;
void* ggml_backend_reg_get_proc_address(ggml_backend_reg_t reg, const char* name);
#if MOESWEEP_STUB_ERA >= 2
struct ggml_backend_feature {
  const char* name;
  const char* value;
};
typedef struct ggml_backend_feature* (*ggml_backend_get_features_t)(ggml_backend_reg_t reg);
void ggml_backend_load_all_from_path(const char* dir_path);
ggml_backend_reg_t ggml_backend_load(const char* path);
void ggml_backend_unload(ggml_backend_reg_t reg);
#endif
}
