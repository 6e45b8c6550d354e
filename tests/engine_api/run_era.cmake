# cmake -DSTUB_ERA=N -DEXPECTED="FEATURE=variant;..." -DSOURCE=<moesweep> -DWORK=<dir>
#       -P run_era.cmake
# Configures and builds tests/engine_api for one stub era (a ctest of tests/CMakeLists.txt).
file(REMOVE_RECURSE "${WORK}")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE}/tests/engine_api -B ${WORK}
                        -DSTUB_ERA=${STUB_ERA} "-DEXPECTED=${EXPECTED}" -DMOESWEEP_SOURCE_DIR=${SOURCE}
                RESULT_VARIABLE configured)
if(NOT configured EQUAL 0)
  message(FATAL_ERROR "era ${STUB_ERA}: configuring failed (the variants above)")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK} RESULT_VARIABLE built)
if(NOT built EQUAL 0)
  message(FATAL_ERROR "era ${STUB_ERA}: the adapter does not compile against the stub")
endif()
