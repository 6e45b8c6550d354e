# MOESWEEP_ENGINE=prebuilt: import the registry package's libraries. The CPU
# backend is not linked: ggml's registry loads the best libggml-cpu-<variant>.so
# for this CPU at run time (the worker records which), and its functions are
# reached through ggml_backend_reg_get_proc_address.
set(_lib "${MOESWEEP_ENGINE_LIB_DIR}")
if(NOT _lib OR NOT EXISTS "${_lib}/libggml-base.so")
  message(FATAL_ERROR "MOESWEEP_ENGINE=prebuilt needs MOESWEEP_ENGINE_LIB_DIR with the package's "
                      "libraries (libggml-base.so, libllama.<release>.so): got '${_lib}'. "
                      "scripts/setup fetches and unpacks them.")
endif()
# The package names its release twice: in the library's file name and in _nlcBuildMetadata.json.
set(_meta_release "")
if(EXISTS "${_lib}/_nlcBuildMetadata.json")
  file(READ "${_lib}/_nlcBuildMetadata.json" _meta)
  string(JSON _meta_release ERROR_VARIABLE _err GET "${_meta}" buildOptions llamaCpp release)
endif()
if(NOT _meta_release STREQUAL MOESWEEP_ENGINE_RELEASE)
  message(FATAL_ERROR "the prebuilt engine in ${_lib} is release '${_meta_release}' but the headers in "
                      "${MOESWEEP_LLAMA_DIR} are release '${MOESWEEP_ENGINE_RELEASE}': the worker must be "
                      "compiled against its libraries' own release. Run scripts/setup again.")
endif()
foreach(_so libllama.${MOESWEEP_ENGINE_RELEASE}.so libggml.${MOESWEEP_ENGINE_RELEASE}.so)
  if(NOT EXISTS "${_lib}/${_so}")
    message(FATAL_ERROR "the prebuilt engine in ${_lib} has no ${_so} (release ${MOESWEEP_ENGINE_RELEASE})")
  endif()
endforeach()
file(GLOB _variants "${_lib}/libggml-cpu-*.so")
if(NOT _variants)
  message(FATAL_ERROR "the prebuilt engine in ${_lib} has no CPU backend (libggml-cpu-<variant>.so)")
endif()
add_library(ggml-base SHARED IMPORTED GLOBAL)
set_target_properties(ggml-base PROPERTIES IMPORTED_LOCATION "${_lib}/libggml-base.so"
  IMPORTED_SONAME libggml-base.so INTERFACE_INCLUDE_DIRECTORIES "${_inc}")
add_library(ggml SHARED IMPORTED GLOBAL)
set_target_properties(ggml PROPERTIES IMPORTED_LOCATION "${_lib}/libggml.${MOESWEEP_ENGINE_RELEASE}.so"
  INTERFACE_INCLUDE_DIRECTORIES "${_inc}" INTERFACE_LINK_LIBRARIES ggml-base)
add_library(llama SHARED IMPORTED GLOBAL)
set_target_properties(llama PROPERTIES IMPORTED_LOCATION "${_lib}/libllama.${MOESWEEP_ENGINE_RELEASE}.so"
  INTERFACE_INCLUDE_DIRECTORIES "${_inc}" INTERFACE_LINK_LIBRARIES ggml)
add_library(ggml-cpu INTERFACE IMPORTED GLOBAL)  # loaded at run time, see above
set(MOESWEEP_ENGINE_BACKEND_DIR "${_lib}")
if(MOESWEEP_ENGINE_PACKAGE)
  set(MOESWEEP_ENGINE_BUILD_TEXT "prebuilt ${MOESWEEP_ENGINE_PACKAGE}")
else()
  set(MOESWEEP_ENGINE_BUILD_TEXT "prebuilt (libraries in ${MOESWEEP_ENGINE_LIB_DIR})")
endif()
set(MOESWEEP_ENGINE_STATIC_VARIANT "")
message(STATUS "moesweep: prebuilt engine ${MOESWEEP_ENGINE_RELEASE} from ${_lib}")
