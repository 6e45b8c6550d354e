# GGML_NATIVE compiles ggml's AMX kernels in wherever CPUID advertises AMX. In
# a KVM guest (an Intel Xeon guest, family 6 model 167, kernel 6.18) the first
# decode then died with a general protection fault on ldtilecfg inside
# ggml_backend_amx_mul_mat, while small AMX test programs ran: the fault
# depends on the hypervisor, not on a check a configure step can make. So in a
# VM the engine's CPU backend is built without AMX unless asked for; on bare
# metal AMX stays. -DMOESWEEP_ENGINE_AMX=ON|OFF overrides the choice.
set(MOESWEEP_ENGINE_AMX "AUTO" CACHE STRING "Build ggml's AMX kernels: AUTO (not in a VM), ON, OFF")
set_property(CACHE MOESWEEP_ENGINE_AMX PROPERTY STRINGS AUTO ON OFF)

set(_amx_use ${MOESWEEP_ENGINE_AMX})
if(_amx_use STREQUAL "AUTO")
  set(_amx_use ON)
  if(EXISTS /proc/cpuinfo)
    file(STRINGS /proc/cpuinfo _flags REGEX "^flags" LIMIT_COUNT 1)
    if(_flags MATCHES " amx_tile" AND _flags MATCHES " hypervisor")
      set(_amx_use OFF)
      message(STATUS "moesweep: AMX in a virtual machine has faulted in ggml's kernels; "
                     "building the engine without AMX (-DMOESWEEP_ENGINE_AMX=ON to keep it)")
    endif()
  endif()
endif()
if(MOESWEEP_ENGINE_PORTABLE)
  set(_amx_use OFF)  # the portable engine targets AVX2 machines
endif()
if(NOT _amx_use)
  # Appended after ggml's own -march=native, so these win.
  target_compile_options(${MOESWEEP_ENGINE_CPU_TARGET} PRIVATE -mno-amx-tile -mno-amx-int8 -mno-amx-bf16)
endif()
set(MOESWEEP_ENGINE_AMX_BUILT ${_amx_use} CACHE INTERNAL "whether ggml's AMX kernels are compiled in")
