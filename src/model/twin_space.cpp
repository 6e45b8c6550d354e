#include "model/twin_space.hpp"

#include <sys/statvfs.h>

#include <fmt/format.h>

#include <algorithm>

#include "model/model_profile.hpp"
#include "model/quant_types.hpp"

namespace moesweep {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr double kMargin = 1.1;                 // the estimate's error: norms, metadata, rounding
constexpr uint64_t kSlackBytes = 256ull << 20;  // the quantize log, the cache's small files

double params_of(const TwinSpec& spec) {
  return static_cast<double>(count_params(spec.profile).total);
}

// As twin_builder.cpp picks the skeleton's weight type: Q8_0 above ~5 bits, else Q4_0.
double skeleton_bpw(const TwinSpec& spec) {
  return find_quant_type(spec.quant).approx_bpw > 5 ? 8.5 : 4.5;
}

uint64_t bytes_of(double bytes) {
  return bytes >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(bytes);
}

}  // namespace

uint64_t estimated_twin_bytes(const TwinSpec& spec) {
  return bytes_of(params_of(spec) * find_quant_type(spec.quant).approx_bpw / 8);
}

uint64_t twin_build_peak_bytes(const TwinSpec& spec) {
  const double skeleton = params_of(spec) * skeleton_bpw(spec) / 8;
  return bytes_of((static_cast<double>(estimated_twin_bytes(spec)) + skeleton) * kMargin +
                  static_cast<double>(kSlackBytes));
}

std::optional<uint64_t> free_disk_bytes(const std::filesystem::path& dir) {
  // A folder not made yet is made on the disk of its nearest existing parent.
  std::filesystem::path at = std::filesystem::absolute(dir);
  std::error_code ec;
  while (!std::filesystem::exists(at, ec) && at.has_parent_path() && at != at.parent_path())
    at = at.parent_path();
  struct statvfs s {};
  if (::statvfs(at.c_str(), &s) != 0) return std::nullopt;
  return static_cast<uint64_t>(s.f_bavail) * static_cast<uint64_t>(s.f_frsize);
}

std::string gib_text(uint64_t bytes) {
  const double gib = static_cast<double>(bytes) / kGiB;
  if (gib < 100) return fmt::format("{:.2f} GiB", gib);
  const std::string digits = fmt::format("{:.0f}", gib);
  std::string out;  // with a comma every three digits: 63,060
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return fmt::format("{} GiB", out);
}

TwinSpaceCheck check_twin_space(const std::vector<TwinSpec>& twins,
                                const std::filesystem::path& dir) {
  TwinSpaceCheck c;
  // Built one after the other: the finished files stay, one build's skeleton at a time.
  uint64_t files = 0, extra = 0;
  for (const TwinSpec& t : twins) {
    const uint64_t file = estimated_twin_bytes(t), peak = twin_build_peak_bytes(t);
    files = files > UINT64_MAX - file ? UINT64_MAX : files + file;
    extra = std::max(extra, peak > file ? peak - file : 0);
  }
  c.needed = files > UINT64_MAX - extra ? UINT64_MAX : files + extra;
  c.free = free_disk_bytes(dir);
  if (twins.empty() || !c.free || c.needed <= *c.free) return c;
  c.problem = fmt::format(
      "building {} twin{} needs about {} on the disk of {} (the quantized file{} and, while "
      "quantizing, a skeleton beside it); {} free",
      twins.size(), twins.size() == 1 ? "" : "s", gib_text(c.needed), dir.string(),
      twins.size() == 1 ? "" : "s", gib_text(*c.free));
  return c;
}

}  // namespace moesweep
