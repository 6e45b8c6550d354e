# Builds ggml + llama from MOESWEEP_LLAMA_DIR as part of our build, natively
# tuned (GGML_NATIVE) because benchmarks of a generic build measure the wrong thing.
if(NOT EXISTS "${MOESWEEP_LLAMA_DIR}/include/llama.h")
  message(FATAL_ERROR
    "llama.cpp not found at MOESWEEP_LLAMA_DIR='${MOESWEEP_LLAMA_DIR}'.\n"
    "Run scripts/setup to fetch the pinned engine, or pass -DMOESWEEP_LLAMA_DIR=/path/to/llama.cpp.")
endif()

set(MOESWEEP_ENGINE_PREBUILT "" CACHE PATH
    "A moesweep build directory whose engine/ libraries to link instead of building the engine again")

if(MOESWEEP_ENGINE_PREBUILT)
  # The sanitizer build links the engine objects of build/ (the engine is never
  # sanitized), which saves a second engine build in CI.
  set(_engine ${MOESWEEP_ENGINE_PREBUILT}/engine)
  if(NOT EXISTS ${_engine}/src/libllama.a)
    message(FATAL_ERROR "MOESWEEP_ENGINE_PREBUILT=${MOESWEEP_ENGINE_PREBUILT} holds no engine/src/libllama.a: build it first")
  endif()
  find_package(OpenMP REQUIRED)
  find_package(Threads REQUIRED)
  set(_inc "${MOESWEEP_LLAMA_DIR}/include;${MOESWEEP_LLAMA_DIR}/ggml/include")
  add_library(ggml-base STATIC IMPORTED GLOBAL)
  set_target_properties(ggml-base PROPERTIES IMPORTED_LOCATION ${_engine}/ggml/src/libggml-base.a
    INTERFACE_INCLUDE_DIRECTORIES "${_inc}" INTERFACE_LINK_LIBRARIES "m;Threads::Threads")
  add_library(ggml-cpu STATIC IMPORTED GLOBAL)
  set_target_properties(ggml-cpu PROPERTIES IMPORTED_LOCATION ${_engine}/ggml/src/libggml-cpu.a
    INTERFACE_INCLUDE_DIRECTORIES "${_inc}" INTERFACE_LINK_LIBRARIES "ggml-base;OpenMP::OpenMP_CXX")
  add_library(ggml STATIC IMPORTED GLOBAL)
  set_target_properties(ggml PROPERTIES IMPORTED_LOCATION ${_engine}/ggml/src/libggml.a
    INTERFACE_INCLUDE_DIRECTORIES "${_inc}" INTERFACE_LINK_LIBRARIES "ggml-cpu;ggml-base;dl")
  add_library(llama STATIC IMPORTED GLOBAL)
  set_target_properties(llama PROPERTIES IMPORTED_LOCATION ${_engine}/src/libllama.a
    INTERFACE_INCLUDE_DIRECTORIES "${_inc}" INTERFACE_LINK_LIBRARIES "ggml")
else()
# A portable engine (AVX2/FMA/F16C/BMI2, ggml's non-native default) is for a
# binary carried to another machine, where -march=native of this one could
# fault; benchmarks on the build machine itself keep the native engine.
option(MOESWEEP_ENGINE_PORTABLE "Build the engine for any x86-64 with AVX2 instead of -march=native" OFF)
if(MOESWEEP_ENGINE_PORTABLE)
  set(GGML_NATIVE OFF CACHE BOOL "" FORCE)
else()
  set(GGML_NATIVE ON CACHE BOOL "" FORCE)
endif()
set(BUILD_SHARED_LIBS OFF CACHE BOOL "" FORCE)
foreach(opt LLAMA_BUILD_TESTS LLAMA_BUILD_EXAMPLES
            LLAMA_BUILD_APP LLAMA_CURL LLAMA_OPENSSL LLAMA_BUILD_UI LLAMA_USE_PREBUILT_UI)
  set(${opt} OFF CACHE BOOL "" FORCE)
endforeach()
# The engine's own tools (llama-bench, llama-server) come from this same tree
# and flags, so side-by-side benchmarks and serve-bench measure one engine
# build; EXCLUDE_FROM_ALL below builds them only when asked for
# (cmake --build build --target llama-bench llama-server). llama-server comes
# without its web UI: no npm, no download.
foreach(opt LLAMA_BUILD_COMMON LLAMA_BUILD_TOOLS LLAMA_BUILD_SERVER)
  set(${opt} ON CACHE BOOL "" FORCE)
endforeach()
add_subdirectory(${MOESWEEP_LLAMA_DIR} ${CMAKE_BINARY_DIR}/engine EXCLUDE_FROM_ALL)
include(${CMAKE_CURRENT_LIST_DIR}/EngineAmx.cmake)
endif()

# What --version and every result record state about the engine.
execute_process(COMMAND git -C ${MOESWEEP_LLAMA_DIR} rev-parse HEAD
  OUTPUT_VARIABLE MOESWEEP_ENGINE_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT MOESWEEP_ENGINE_COMMIT)
  set(MOESWEEP_ENGINE_COMMIT "unknown")
endif()
set(MOESWEEP_ENGINE_RELEASE "unknown")
if(EXISTS "${MOESWEEP_LLAMA_DIR}/.moesweep-release")
  file(STRINGS "${MOESWEEP_LLAMA_DIR}/.moesweep-release" MOESWEEP_ENGINE_RELEASE LIMIT_COUNT 1)
endif()
