#pragma once
// One error type for everything a user can get wrong: it carries what was
// wrong, what was expected, and what to do, so every command prints the same
// three-part message and exits non-zero.
#include <stdexcept>
#include <string>

namespace moesweep {

class UserError : public std::runtime_error {
 public:
  UserError(std::string what, std::string expected, std::string fix, int exit_code = 2);
  const std::string& problem() const { return problem_; }
  const std::string& expected() const { return expected_; }
  const std::string& fix() const { return fix_; }
  int exit_code() const { return exit_code_; }

 private:
  std::string problem_, expected_, fix_;
  int exit_code_;
};

// Exit codes shared by every subcommand (documented in docs/sweep.md, "Failures and Ctrl-C").
namespace exit_code {
inline constexpr int kOk = 0;
inline constexpr int kFailure = 1;        // unexpected error
inline constexpr int kBadInput = 2;       // UserError: flags, profiles, files
inline constexpr int kPointsFailed = 3;   // sweep finished, some points failed
inline constexpr int kInterrupted = 130;  // Ctrl-C, results kept
inline constexpr int kRegression = 4;     // compare found a real regression
// compare could not have seen a regression of the threshold (a deciding MDE
// beyond it: the geometric mean's under the default geomean+holm, a cell's
// under holm; or nothing testable) and found none: not a pass
inline constexpr int kInconclusive = 5;
}  // namespace exit_code

}  // namespace moesweep
