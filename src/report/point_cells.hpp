#pragma once
// Cells the run's tables share (sweep-bench, threads): a speed with its `!`,
// the noise flags `*` and `+`, repetitions with `max`, and the legend that
// says what each mark means, one line per mark.
#include <string>

#include "results/record.hpp"

namespace moesweep {

inline constexpr double kHighCv = 0.05;  // CV above this is flagged "!" in tables

std::string with_flag(double value, double cv, int decimals);  // "123.45 !"
std::string mean_sd(const Stats& s);                           // "123.45 ± 6.78 !"
std::string steal_cell(const Record& r);                       // "0.3%", "4.1% *", "n/a"
std::string others_cell(const Record& r);                      // "1.2%", "38.0% +", "n/a"
bool others_flagged(const Record& r);
// The noise marks alone ("* +", "" when none): a compact table's flags column.
std::string noise_flags(const Record& r);
std::string repetitions_cell(const Record& r);  // "5", "20 max"
// One line per mark, each within kTerminalWidth.
std::string marks_legend();

}  // namespace moesweep
