#pragma once
// What ik_llama.cpp's examples/sweep-bench/sweep-bench-plot.py needs of a
// file: pandas.read_csv(sep=r'\s*\|\s*', header=0, skiprows=[1]), the empty
// first and last columns dropped, then N_KV, S_PP t/s and S_TG t/s made
// numeric. So: one table, header first, a separator line, then rows of
// numbers only, with exactly sweep-bench's seven columns.
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace moesweep::test {

inline const std::vector<std::string>& sweep_bench_columns() {
  static const std::vector<std::string> c = {"PP",       "TG",     "N_KV",    "T_PP s",
                                             "S_PP t/s", "T_TG s", "S_TG t/s"};
  return c;
}

// The cells of a "| a | b |" line, as the plot script's separator splits them
// (its dropped empty first/last columns included, so a bad line shows).
inline std::vector<std::string> pipe_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cur;
  auto flush = [&] {
    size_t a = cur.find_first_not_of(' '), b = cur.find_last_not_of(' ');
    cells.push_back(a == std::string::npos ? "" : cur.substr(a, b - a + 1));
    cur.clear();
  };
  for (char c : line) {
    if (c == '|')
      flush();
    else
      cur += c;
  }
  flush();
  return cells;
}

inline bool is_number(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

// "" when `text` reads as a sweep-bench table, else what is wrong; rows: data lines seen.
inline std::string sweep_bench_format_problem(const std::string& text, int* rows = nullptr) {
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  if (lines.size() < 3) return "fewer than a header, a separator and one row";
  std::vector<std::string> header = pipe_cells(lines[0]);
  if (header.size() != 9 || !header.front().empty() || !header.back().empty())
    return "header is not one |-delimited row of seven cells: " + lines[0];
  header = {header.begin() + 1, header.end() - 1};
  if (header != sweep_bench_columns()) return "header differs from sweep-bench's: " + lines[0];
  if (lines[1].find_first_not_of("|-: ") != std::string::npos)
    return "second line is not a separator: " + lines[1];
  for (size_t i = 2; i < lines.size(); ++i) {
    const std::vector<std::string> cells = pipe_cells(lines[i]);
    if (cells.size() != 9 || !cells.front().empty() || !cells.back().empty())
      return "row without seven cells: " + lines[i];
    for (size_t c = 1; c + 1 < cells.size(); ++c)
      if (!is_number(cells[c])) return "cell '" + cells[c] + "' is not a number: " + lines[i];
  }
  if (rows) *rows = static_cast<int>(lines.size()) - 2;
  return "";
}

}  // namespace moesweep::test
