#pragma once
// The flags of the settings table (sweep_settings.hpp) as spelled: the command
// line's llama.cpp spellings rewritten to the table's long names, and the table
// itself in Markdown for docs/sweep.md (`moesweep help-flags --markdown`
// prints it; tests/spec/flag_table_test.cpp fails when the file differs).
#include <string>
#include <vector>

namespace moesweep {

// llama.cpp's single-dash long flags (-tb, -ub, -ctk, ...; "-ctk=q8_0" too)
// rewritten to their long names (CLI11 allows one-letter short names only).
// Everything after a bare "--" is left as given: it belongs to another
// program (serve-bench passes it to llama-server, which has its own -tb).
std::vector<std::string> rewrite_llama_aliases(std::vector<std::string> args);

// Every row of sweep_settings(), in its order, as a Markdown table: flag(s),
// llama.cpp alias, profile key, plan level, meaning. Ends with a newline.
std::string sweep_settings_markdown();
// The same rows for a terminal (`moesweep help-flags`): the flag(s), level and
// profile key on one line, the meaning wrapped under it.
std::string sweep_settings_text();

}  // namespace moesweep
