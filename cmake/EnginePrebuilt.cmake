# MOESWEEP_ENGINE=prebuilt: import the registry package's libraries. The
# packages of @node-llama-cpp/linux-x64 have three layouts over the releases
# (read from the 33 packages, 3.1.1 = b3889 ... 3.22.1 = v0.5.0):
#   - libllama.so + libggml.so, the CPU backend inside libggml (3.1.1, 3.2.0);
#   - + libggml-base.so and one libggml-cpu.so that libggml links (3.3.x);
#   - + libggml-cpu-<variant>.so per CPU family, loaded at run time by ggml's
#     registry, which picks the best one for this CPU (3.4.0 on; the worker
#     records which, and reaches their functions through
#     ggml_backend_reg_get_proc_address).
# From 3.12.4 the two main libraries carry the release in their names
# (libllama.b6301.so, libllama.v0.4.0.so), from 3.14.4 in their SONAMEs too
# (libllama.b7324.so.0).
set(_lib "${MOESWEEP_ENGINE_LIB_DIR}")
if(NOT _lib OR NOT EXISTS "${_lib}/_nlcBuildMetadata.json")
  message(FATAL_ERROR "MOESWEEP_ENGINE=prebuilt needs MOESWEEP_ENGINE_LIB_DIR with the package's "
                      "libraries and its _nlcBuildMetadata.json: got '${_lib}'. "
                      "scripts/setup (or engine add --release) fetches and unpacks them.")
endif()
# The package names its release in _nlcBuildMetadata.json (and, later, in the libraries' names).
file(READ "${_lib}/_nlcBuildMetadata.json" _meta)
string(JSON _meta_release ERROR_VARIABLE _err GET "${_meta}" buildOptions llamaCpp release)
if(NOT _meta_release STREQUAL MOESWEEP_ENGINE_RELEASE)
  message(FATAL_ERROR "the prebuilt engine in ${_lib} is release '${_meta_release}' but the headers in "
                      "${MOESWEEP_LLAMA_DIR} are release '${MOESWEEP_ENGINE_RELEASE}': the worker must be "
                      "compiled against its libraries' own release. Run scripts/setup again.")
endif()

# The first of `names` that exists in the package, into `var`; FATAL_ERROR naming them all if none.
function(_moesweep_package_lib var)
  foreach(name ${ARGN})
    if(EXISTS "${_lib}/${name}")
      set(${var} "${_lib}/${name}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  string(REPLACE ";" " or " names "${ARGN}")
  message(FATAL_ERROR "the prebuilt engine in ${_lib} has no ${names} (release ${MOESWEEP_ENGINE_RELEASE})")
endfunction()
_moesweep_package_lib(_llama_so libllama.${MOESWEEP_ENGINE_RELEASE}.so libllama.so)
_moesweep_package_lib(_ggml_so libggml.${MOESWEEP_ENGINE_RELEASE}.so libggml.so)

add_library(ggml SHARED IMPORTED GLOBAL)
set_target_properties(ggml PROPERTIES IMPORTED_LOCATION "${_ggml_so}"
  INTERFACE_INCLUDE_DIRECTORIES "${_inc}")
if(EXISTS "${_lib}/libggml-base.so")
  add_library(ggml-base SHARED IMPORTED GLOBAL)
  set_target_properties(ggml-base PROPERTIES IMPORTED_LOCATION "${_lib}/libggml-base.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_inc}")
  set_property(TARGET ggml PROPERTY INTERFACE_LINK_LIBRARIES ggml-base)
else()  # 3.1.1, 3.2.0: all of ggml in libggml.so
  add_library(ggml-base INTERFACE IMPORTED GLOBAL)
  set_target_properties(ggml-base PROPERTIES INTERFACE_LINK_LIBRARIES ggml)
endif()
add_library(llama SHARED IMPORTED GLOBAL)
set_target_properties(llama PROPERTIES IMPORTED_LOCATION "${_llama_so}"
  INTERFACE_INCLUDE_DIRECTORIES "${_inc}" INTERFACE_LINK_LIBRARIES ggml)

file(GLOB _variants "${_lib}/libggml-cpu-*.so")
add_library(ggml-cpu INTERFACE IMPORTED GLOBAL)  # loaded by libggml or at run time: never linked here
if(_variants)
  set(MOESWEEP_ENGINE_BACKEND_DIR "${_lib}")
  set(MOESWEEP_ENGINE_STATIC_VARIANT "")
elseif(EXISTS "${_lib}/libggml-cpu.so")
  set(MOESWEEP_ENGINE_STATIC_VARIANT "one build (libggml-cpu.so)")
else()
  set(MOESWEEP_ENGINE_STATIC_VARIANT "one build (libggml.so)")
endif()
if(MOESWEEP_ENGINE_PACKAGE)
  set(MOESWEEP_ENGINE_BUILD_TEXT "prebuilt ${MOESWEEP_ENGINE_PACKAGE}")
else()
  set(MOESWEEP_ENGINE_BUILD_TEXT "prebuilt (libraries in ${MOESWEEP_ENGINE_LIB_DIR})")
endif()
message(STATUS "moesweep: prebuilt engine ${MOESWEEP_ENGINE_RELEASE} from ${_lib}")
