#include "util/error.hpp"

#include <fmt/format.h>

namespace moesweep {

namespace {
// fmt rather than operator+ chains: GCC 12 warns falsely (-Wrestrict) on those.
std::string full_message(const std::string& what, const std::string& expected, const std::string& fix) {
  return fmt::format("{}{}{}{}{}", what, expected.empty() ? "" : "; expected ", expected, fix.empty() ? "" : ". ",
                     fix);
}
}  // namespace

UserError::UserError(std::string what, std::string expected, std::string fix, int exit_code)
    : std::runtime_error(full_message(what, expected, fix)),
      problem_(std::move(what)),
      expected_(std::move(expected)),
      fix_(std::move(fix)),
      exit_code_(exit_code) {}

}  // namespace moesweep
