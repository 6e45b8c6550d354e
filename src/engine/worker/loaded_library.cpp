#include "engine/worker/loaded_library.hpp"

#include <link.h>

#include <cstring>

namespace moesweep::worker {

std::string loaded_library(const char* prefix) {
  struct Search {
    const char* prefix;
    std::string found;
  } search{prefix, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        const char* name = info->dlpi_name ? std::strrchr(info->dlpi_name, '/') : nullptr;
        if (name && std::strncmp(name + 1, s->prefix, std::strlen(s->prefix)) == 0) {
          s->found = info->dlpi_name;
          return 1;
        }
        return 0;
      },
      &search);
  return search.found;
}

}  // namespace moesweep::worker
