find_package(fmt REQUIRED)            # formatting of tables and messages
find_package(nlohmann_json REQUIRED)  # profiles, JSONL records, meta.json
find_package(CLI11 CONFIG REQUIRED)   # the moesweep command line
find_package(SQLite3 REQUIRED)        # the results store
find_package(OpenSSL REQUIRED)        # sha256 of model files (libcrypto)
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc)  # topology: cores, L3 domains, NUMA
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)  # routing traces (routing.trace.zst)
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)  # serve-bench's HTTP client
find_library(LIKWID_LIBRARY likwid)   # perfmon API for hardware counters (optional at run time)
find_path(LIKWID_INCLUDE_DIR likwid.h)
find_package(benchmark QUIET)         # kernels-bench micro-benchmarks
find_package(GTest QUIET)             # the test suite
