# Warnings and sanitizers apply to our targets only; the engine keeps its own flags.
function(moesweep_target_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  if(MOESWEEP_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
  if(MOESWEEP_FUZZ)  # scripts/fuzz: coverage for libFuzzer, ASan + UBSan (our code only)
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link,address,undefined
                                             -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()

# One static library per concern (src/<dir>), sources globbed so a new file
# in a concern needs no CMake edit. A concern's sub-folder that is a library of
# its own (src/engine/worker) is left to that library.
function(moesweep_add_library name dir)
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/${dir}/*.cpp)
  if(dir STREQUAL "engine")
    list(FILTER srcs EXCLUDE REGEX "/src/engine/worker/")
  endif()
  add_library(${name} STATIC ${srcs})
  target_include_directories(${name} PUBLIC ${CMAKE_SOURCE_DIR}/src)
  target_link_libraries(${name} PUBLIC ${ARGN})
  moesweep_target_defaults(${name})
  if(MOESWEEP_SANITIZE OR MOESWEEP_FUZZ)
    target_link_options(${name} INTERFACE -fsanitize=address,undefined)
  endif()
endfunction()
