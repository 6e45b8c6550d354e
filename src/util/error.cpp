#include "util/error.hpp"

namespace moesweep {

UserError::UserError(std::string what, std::string expected, std::string fix, int exit_code)
    : std::runtime_error(what + (expected.empty() ? "" : "; expected " + expected) +
                         (fix.empty() ? "" : ". " + fix)),
      problem_(std::move(what)),
      expected_(std::move(expected)),
      fix_(std::move(fix)),
      exit_code_(exit_code) {}

}  // namespace moesweep
