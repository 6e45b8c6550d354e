#pragma once
// Text for a terminal of kTerminalWidth columns (issue 48): what moesweep
// prints by default fits it; wide tables go to files (and --wide).
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace moesweep {

inline constexpr size_t kTerminalWidth = 120;

// Which rendering of a table: kWide keeps every column (tables.md, report.md,
// compare.md, --wide); kCompact keeps the figures a person decides on and
// fits kTerminalWidth (what a terminal gets by default).
enum class TableWidth { kCompact, kWide };

// Columns a line takes: UTF-8 code points ("±" is one column, two bytes).
size_t display_width(std::string_view line);
// The widest line of a text, in columns.
size_t widest_line(std::string_view text);
// One paragraph's words on lines of at most `width` columns (a word longer
// than that stands alone); the first line keeps the text's leading spaces,
// later lines start with `indent`.
std::string wrap_words(std::string_view text, size_t width = kTerminalWidth,
                       std::string_view indent = "");

// A paragraph in a table's rendering: as it is for kWide (a file keeps its
// lines whole: scripts grep them), wrapped by wrap_words for kCompact.
std::string fit(std::string_view text, TableWidth width, std::string_view indent = "");

// Whether stderr is a terminal: error messages are wrapped there, and kept a
// line per part in pipes and logs (where scripts grep them).
bool stderr_is_terminal();

// A line for stderr (progress, a note): wrapped, later lines indented two
// spaces, where stderr is a terminal; as it is in a pipe or a log.
void print_note(std::string_view line);

// A line of prose, wrapped to the terminal (later lines indented four
// spaces), with its newline.
void print_wrapped(std::string_view line, std::FILE* to = stdout);

}  // namespace moesweep
