# MOESWEEP_ENGINE_KIND=ik_llama.cpp: the worker alone, against an ik_llama.cpp
# build's shared libraries (libllama.so, libggml.so in MOESWEEP_ENGINE_LIB_DIR,
# built by `moesweep engine add --ik-llama DIR`) and its headers
# (MOESWEEP_LLAMA_DIR). Its ggml has no backend registry and no separate
# ggml-base/ggml-cpu libraries: both names stand for libggml.so here, so the
# rest of the tree still configures (only moesweep-worker is built this way).
set(_lib "${MOESWEEP_ENGINE_LIB_DIR}")
foreach(_so libllama.so libggml.so)
  if(NOT _lib OR NOT EXISTS "${_lib}/${_so}")
    message(FATAL_ERROR "MOESWEEP_ENGINE_KIND=ik_llama.cpp needs MOESWEEP_ENGINE_LIB_DIR with an "
                        "ik_llama.cpp build's ${_so}: got '${_lib}'. `moesweep engine add NAME "
                        "--ik-llama DIR` builds them.")
  endif()
endforeach()
add_library(ggml SHARED IMPORTED GLOBAL)
set_target_properties(ggml PROPERTIES IMPORTED_LOCATION "${_lib}/libggml.so"
  IMPORTED_SONAME libggml.so INTERFACE_INCLUDE_DIRECTORIES "${_inc}")
add_library(llama SHARED IMPORTED GLOBAL)
set_target_properties(llama PROPERTIES IMPORTED_LOCATION "${_lib}/libllama.so"
  IMPORTED_SONAME libllama.so INTERFACE_INCLUDE_DIRECTORIES "${_inc}" INTERFACE_LINK_LIBRARIES ggml)
add_library(ggml-base INTERFACE IMPORTED GLOBAL)
set_target_properties(ggml-base PROPERTIES INTERFACE_LINK_LIBRARIES ggml)
add_library(ggml-cpu INTERFACE IMPORTED GLOBAL)
set(MOESWEEP_ENGINE_BUILD_TEXT "ik_llama.cpp, libraries built by engine add")
set(MOESWEEP_ENGINE_STATIC_VARIANT "")
message(STATUS "moesweep: ik_llama.cpp ${MOESWEEP_ENGINE_COMMIT} from ${_lib}")
