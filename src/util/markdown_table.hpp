#pragma once
// A plain Markdown table builder: right-aligned numeric columns, padded so the
// table reads well in a terminal as well as rendered.
#include <string>
#include <vector>

namespace moesweep {

class MarkdownTable {
 public:
  explicit MarkdownTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void add_row(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string render() const;
  size_t rows() const { return rows_.size(); }

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace moesweep
