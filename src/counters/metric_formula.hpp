#pragma once
// Derived metrics are formulas over event totals, kept in the profile JSON like
// likwid's perfgroups ("DRAM_READ_CAS * 64 / time * 1e-9"), so adding a CPU
// family is a data change. Grammar: numbers, identifiers, + - * /, parentheses.
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace moesweep::counters {

// Identifiers the formula reads, in order of first use (to know which events
// a metric needs before measuring). Throws std::invalid_argument on bad syntax.
std::vector<std::string> formula_identifiers(const std::string& formula);

// lookup returns the value of an identifier, or nullopt when it is unknown
// (then std::invalid_argument names it). Division by zero yields NaN so the
// caller can say "nothing was counted" instead of printing infinity.
double evaluate_formula(const std::string& formula,
                        const std::function<std::optional<double>(const std::string&)>& lookup);

}  // namespace moesweep::counters
