#pragma once
// What `moesweep gate` leaves for CI beside its run: one test case per cell
// and metric (a failure for a regression, skipped for a cell that could not
// have seen one), a Markdown summary fit for a pull-request comment, and the
// same cases as JUnit XML (the junit-10 schema Jenkins, GitLab and GitHub
// test reporters read). Built from compare's own results (compare.hpp,
// count_compare.hpp): no statistic is computed here.
#include <string>
#include <vector>

#include "results/compare.hpp"
#include "results/count_compare.hpp"

namespace moesweep {

enum class CaseResult { kPass, kFailure, kSkipped };

struct GateCase {
  std::string metric;  // "S_TG", "TG.instructions", ...: the JUnit classname's last part
  std::string cell;    // "threads 1, N_KV 256" or "geometric mean over 3 cells"
  CaseResult result = CaseResult::kPass;
  std::string ratio;   // "0.912"
  std::string ci;      // "[0.889, 0.935]", or "exact" for counts
  std::string limit;   // what the cell could see: "MDE 2.1%", or "tolerance 0.01%"
  std::string detail;  // the verdict in words
};

struct GateReport {
  std::string base, fresh;  // the engines (or baseline and run) compared
  std::string what;         // "wall time (S_PP, S_TG)" or "counts per token (--counters sim)"
  int exit_code = 0;        // 0 pass, 4 regression, 5 inconclusive
  std::string line;         // compare's gate line
  std::vector<GateCase> cases;
  double seconds = 0;   // the whole gate, sweep included
  std::string run_dir;  // where compare.md and the rest lie
};

GateReport gate_report_of(const Comparison& c);
GateReport gate_report_of(const CountComparison& c);
// "pass", "regression", "inconclusive" for 0, 4, 5.
const char* gate_outcome_word(int exit_code);

std::string gate_markdown(const GateReport& r);
std::string gate_junit_xml(const GateReport& r);
// Text made safe for an XML attribute or element (&, <, >, quotes; control
// characters other than tab and line ends dropped).
std::string xml_escaped(const std::string& text);

}  // namespace moesweep
