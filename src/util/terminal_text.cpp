#include "util/terminal_text.hpp"

#include <unistd.h>

#include <algorithm>

namespace moesweep {

size_t display_width(std::string_view line) {
  size_t columns = 0;
  for (char c : line)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++columns;  // not a continuation byte
  return columns;
}

size_t widest_line(std::string_view text) {
  size_t widest = 0;
  for (size_t start = 0; start <= text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    widest = std::max(widest, display_width(text.substr(start, end - start)));
    start = end + 1;
  }
  return widest;
}

std::string wrap_words(std::string_view text, size_t width, std::string_view indent) {
  std::string out, line;
  size_t words_on_line = 0;
  for (size_t at = 0; at < text.size();) {
    const size_t word_at = std::min(text.find_first_not_of(' ', at), text.size());
    const size_t word_end = std::min(text.find(' ', word_at), text.size());
    const std::string_view gap = text.substr(at, word_at - at),
                           word = text.substr(word_at, word_end - word_at);
    at = word_end;
    if (word.empty()) break;
    // The spacing between words is kept (aligned columns, a leading indent)
    // until a word would pass the width: then it starts the next line.
    if (words_on_line > 0 &&
        display_width(line) + display_width(gap) + display_width(word) > width) {
      out += line + "\n";
      line = std::string(indent);
      words_on_line = 0;
    } else {
      line += gap;
    }
    line += word;
    ++words_on_line;
  }
  return out + line;
}

std::string fit(std::string_view text, TableWidth width, std::string_view indent) {
  return width == TableWidth::kWide ? std::string(text) : wrap_words(text, kTerminalWidth, indent);
}

bool stderr_is_terminal() {
  static const bool terminal = isatty(STDERR_FILENO) == 1;
  return terminal;
}

void print_note(std::string_view line) {
  const std::string text =
      (stderr_is_terminal() ? wrap_words(line, kTerminalWidth, "  ") : std::string(line)) + "\n";
  std::fputs(text.c_str(), stderr);
}

void print_wrapped(std::string_view line, std::FILE* to) {
  const std::string text = wrap_words(line, kTerminalWidth, "    ") + "\n";
  std::fputs(text.c_str(), to);
}

}  // namespace moesweep
