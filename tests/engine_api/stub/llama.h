// TEST DOUBLE: not llama.cpp's llama.h. The few declarations of llama.h that
// cmake/EngineApi.cmake's probes and src/engine/worker/llama_cpp/llama_api.cpp
// use, spelled as one release of each API era spelled them (MOESWEEP_STUB_ERA:
// 1 = b3889 (npm 3.1.1), 2 = b4980 (3.7.0), 3 = b6301 (3.12.4), 4 = b6673
// (3.14.0), 5 = b10361 (3.20.0), 6 = v0.4.0 (3.21.1)), read from those
// releases' include/llama.h. Nothing is defined: the test only compiles
// against it (tests/engine_api/CMakeLists.txt).
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "ggml-backend.h"
#include "ggml.h"

extern "C" {
typedef int32_t llama_pos;
typedef int32_t llama_seq_id;
struct llama_model;
struct llama_context;
struct llama_vocab;

#if MOESWEEP_STUB_ERA >= 3
struct llama_model_tensor_buft_override {
  const char* pattern;
  ggml_backend_buffer_type_t buft;
};
#endif
#if MOESWEEP_STUB_ERA >= 5
enum llama_load_mode { LLAMA_LOAD_MODE_AUTO = 0 };
#endif

struct llama_model_params {
  int32_t n_gpu_layers;
#if MOESWEEP_STUB_ERA >= 3
  const struct llama_model_tensor_buft_override* tensor_buft_overrides;
#endif
#if MOESWEEP_STUB_ERA >= 5
  enum llama_load_mode load_mode;
#else
  bool use_mmap;
  bool use_mlock;
#endif
};

#if MOESWEEP_STUB_ERA >= 4
enum llama_flash_attn_type {
  LLAMA_FLASH_ATTN_TYPE_AUTO = -1,
  LLAMA_FLASH_ATTN_TYPE_DISABLED = 0,
  LLAMA_FLASH_ATTN_TYPE_ENABLED = 1,
};
const char* llama_flash_attn_type_name(enum llama_flash_attn_type type);
#endif

struct llama_context_params {
  uint32_t n_ctx;
#if MOESWEEP_STUB_ERA >= 4
  enum llama_flash_attn_type flash_attn_type;
#else
  bool flash_attn;
#endif
};

struct llama_model_quantize_params {
  int32_t nthread;
#if MOESWEEP_STUB_ERA >= 6
  size_t max_buf_size;
#endif
};

struct llama_model_params llama_model_default_params(void);
struct llama_context_params llama_context_default_params(void);
struct llama_model_quantize_params llama_model_quantize_default_params(void);

#if MOESWEEP_STUB_ERA >= 2
struct llama_model* llama_model_load_from_file(const char* path, struct llama_model_params params);
void llama_model_free(struct llama_model* model);
struct llama_context* llama_init_from_model(struct llama_model* model,
                                            struct llama_context_params params);
int32_t llama_vocab_n_tokens(const struct llama_vocab* vocab);
const struct llama_vocab* llama_model_get_vocab(const struct llama_model* model);
int32_t llama_model_n_layer(const struct llama_model* model);
int32_t llama_model_n_ctx_train(const struct llama_model* model);
#else
struct llama_model* llama_load_model_from_file(const char* path, struct llama_model_params params);
void llama_free_model(struct llama_model* model);
struct llama_context* llama_new_context_with_model(struct llama_model* model,
                                                   struct llama_context_params params);
int32_t llama_n_vocab(const struct llama_model* model);
int32_t llama_n_layer(const struct llama_model* model);
int32_t llama_n_ctx_train(const struct llama_model* model);
#endif

#if MOESWEEP_STUB_ERA >= 3
typedef struct llama_memory_i* llama_memory_t;
llama_memory_t llama_get_memory(const struct llama_context* ctx);
bool llama_memory_seq_rm(llama_memory_t mem, llama_seq_id seq, llama_pos p0, llama_pos p1);
llama_pos llama_memory_seq_pos_max(llama_memory_t mem, llama_seq_id seq);
#elif MOESWEEP_STUB_ERA == 2
bool llama_kv_self_seq_rm(struct llama_context* ctx, llama_seq_id seq, llama_pos p0, llama_pos p1);
llama_pos llama_kv_self_seq_pos_max(struct llama_context* ctx, llama_seq_id seq);
int32_t llama_kv_self_used_cells(const struct llama_context* ctx);
#else
bool llama_kv_cache_seq_rm(struct llama_context* ctx, llama_seq_id seq, llama_pos p0, llama_pos p1);
llama_pos llama_kv_cache_seq_pos_max(struct llama_context* ctx, llama_seq_id seq);
int32_t llama_get_kv_cache_used_cells(const struct llama_context* ctx);
#endif

#if MOESWEEP_STUB_ERA >= 5
enum llama_load_mode llama_load_mode_from_str(const char* name);
#endif
}
