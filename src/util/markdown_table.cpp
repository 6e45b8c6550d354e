#include "util/markdown_table.hpp"

#include <algorithm>

#include "util/terminal_text.hpp"

namespace moesweep {

std::string MarkdownTable::render() const {
  std::vector<size_t> width(header_.size(), 3);
  for (size_t c = 0; c < header_.size(); ++c)
    width[c] = std::max(width[c], display_width(header_[c]));
  for (const auto& row : rows_)
    for (size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], display_width(row[c]));
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = "|";
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string& cell = c < cells.size() ? cells[c] : std::string();
      out.append(1, ' ').append(width[c] - display_width(cell), ' ').append(cell).append(" |");
    }
    return out + "\n";
  };
  std::string out = line(header_);
  out += "|";
  for (size_t w : width) out += std::string(w + 1, '-') + ":|";
  out += "\n";
  for (const auto& row : rows_) out += line(row);
  return out;
}

}  // namespace moesweep
