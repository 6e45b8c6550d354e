#include "results/file_sinks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "results/memory_fields.hpp"
#include "results/point_fields.hpp"
#include "util/error.hpp"

namespace moesweep {

DurableAppender::DurableAppender(const std::filesystem::path& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) {
    throw UserError(fmt::format("cannot open '{}' for writing", path.string()),
                    "a writable results directory",
                    "choose another --out-dir or fix its permissions");
  }
  empty_ = std::ftell(file_) == 0;
}

DurableAppender::~DurableAppender() {
  if (file_) std::fclose(file_);
}

void DurableAppender::append_line(const std::string& line) {
  // A full disk shows here (at the flush or the fsync): stop rather than lose records unsaid.
  const bool ok = std::fputs(line.c_str(), file_) >= 0 && std::fputc('\n', file_) != EOF &&
                  std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
  if (!ok) {
    throw UserError(fmt::format("cannot write '{}': {}", path_.string(), std::strerror(errno)),
                    "a results directory on a disk with free space",
                    "free space (or pick another --out-dir), then continue with "
                    "`moesweep sweep --resume RUN_DIR`");
  }
  empty_ = false;
}

void JsonlSink::point(const Record& record) {
  out_.append_line(record_to_json(record).dump());
}

std::string csv_quote(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_header() {
  std::string out = "run_id,point,ok";
  for (const PointField& f : point_fields()) {
    if (f.csv) out += fmt::format(",{}", column_name(f));
  }
  std::vector<const char*> memory;
  for (const MemoryField& f : memory_fields()) memory.push_back(f.csv);  // bytes
  return fmt::format(
      "{},t_pp,speed_pp,speed_pp_sd,speed_pp_cv,t_tg,speed_tg,speed_tg_sd,speed_tg_cv,"
      "repetitions,error,{}",
      out, fmt::join(memory, ","));
}

std::string csv_row(const Record& r) {
  std::string out = fmt::format("{},{},{}", r.run_id, r.point_index, r.ok ? 1 : 0);
  for (const PointField& f : point_fields()) {
    if (f.csv) {
      out += ',';  // apart: GCC 12 warns (-Wrestrict) on "," + string here
      out += csv_quote(field_text(f, r.params));
    }
  }
  out += fmt::format(",{:.6f},{:.3f},{:.3f},{:.4f},{:.6f},{:.3f},{:.3f},{:.4f},{},{}", r.pp.t.mean,
                     r.pp.speed.mean, r.pp.speed.sd, r.pp.speed.cv, r.tg.t.mean, r.tg.speed.mean,
                     r.tg.speed.sd, r.tg.speed.cv, std::max(r.pp.speed.n, r.tg.speed.n),
                     csv_quote(r.error));
  std::vector<std::string> memory;
  for (const MemoryField& f : memory_fields()) {
    const auto& v = r.memory.*f.member;
    memory.push_back(v ? std::to_string(*v) : "");
  }
  return fmt::format("{},{}", out, fmt::join(memory, ","));
}

void CsvSink::begin(const RunMeta&) {
  if (out_.empty_file()) out_.append_line(csv_header());
}

void CsvSink::point(const Record& record) {
  out_.append_line(csv_row(record));
}

}  // namespace moesweep
