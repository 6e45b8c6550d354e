#include "counters/metric_formula.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace moesweep::counters {
namespace {

// A recursive-descent parser that evaluates while it parses; with a null
// lookup it only collects identifiers.
class FormulaParser {
 public:
  FormulaParser(const std::string& text,
                const std::function<std::optional<double>(const std::string&)>* lookup)
      : text_(text), lookup_(lookup) {}

  double parse() {
    const double v = sum();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected character");
    return v;
  }
  std::vector<std::string> identifiers;

 private:
  double sum() {
    double v = product();
    for (;;) {
      skip_space();
      if (eat('+'))
        v += product();
      else if (eat('-'))
        v -= product();
      else
        return v;
    }
  }
  double product() {
    double v = unary();
    for (;;) {
      skip_space();
      if (eat('*')) {
        v *= unary();
      } else if (eat('/')) {
        const double d = unary();
        v = d == 0 ? std::numeric_limits<double>::quiet_NaN() : v / d;
      } else {
        return v;
      }
    }
  }
  double unary() {
    skip_space();
    if (eat('-')) return -unary();
    if (eat('(')) {
      const double v = sum();
      skip_space();
      if (!eat(')')) fail("missing ')'");
      return v;
    }
    if (pos_ < text_.size() && (std::isdigit(text_[pos_]) || text_[pos_] == '.')) return number();
    if (pos_ < text_.size() && (std::isalpha(text_[pos_]) || text_[pos_] == '_'))
      return identifier();
    fail("expected a number, a name or '('");
    return 0;
  }
  double number() {
    std::size_t used = 0;
    const double v = std::stod(text_.substr(pos_), &used);
    pos_ += used;
    return v;
  }
  double identifier() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(text_[pos_]) || text_[pos_] == '_')) ++pos_;
    const std::string name = text_.substr(start, pos_ - start);
    if (std::find(identifiers.begin(), identifiers.end(), name) == identifiers.end())
      identifiers.push_back(name);
    if (!lookup_) return 1;
    const std::optional<double> v = (*lookup_)(name);
    if (!v)
      throw std::invalid_argument(fmt::format("formula '{}': unknown name '{}'", text_, name));
    return *v;
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  [[noreturn]] void fail(const char* what) {
    throw std::invalid_argument(fmt::format("formula '{}': {} at offset {}", text_, what, pos_));
  }

  const std::string& text_;
  const std::function<std::optional<double>(const std::string&)>* lookup_;
  std::size_t pos_ = 0;
};

}  // namespace

std::vector<std::string> formula_identifiers(const std::string& formula) {
  FormulaParser parser(formula, nullptr);
  parser.parse();
  return parser.identifiers;
}

double evaluate_formula(const std::string& formula,
                        const std::function<std::optional<double>(const std::string&)>& lookup) {
  FormulaParser parser(formula, &lookup);
  return parser.parse();
}

}  // namespace moesweep::counters
