#pragma once
// The run directory's line-oriented files. Each point() is written, flushed and
// fsync'ed before it returns, so a crash or SIGKILL loses no finished point.
#include <cstdio>
#include <filesystem>
#include <string>

#include "results/sink.hpp"

namespace moesweep {

// Appends and fsyncs lines to one file.
class DurableAppender {
 public:
  explicit DurableAppender(const std::filesystem::path& path);
  ~DurableAppender();
  DurableAppender(const DurableAppender&) = delete;
  DurableAppender& operator=(const DurableAppender&) = delete;
  void append_line(const std::string& line);
  bool empty_file() const { return empty_; }

 private:
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
  bool empty_ = true;
};

// A CSV field: quoted (and its quotes doubled) when it holds a comma, a quote
// or a newline.
std::string csv_quote(const std::string& s);

// records.jsonl: one record_to_json line per point (sweep-bench keys first).
class JsonlSink : public RunListener {
 public:
  explicit JsonlSink(const std::filesystem::path& path) : out_(path) {}
  void point(const Record& record) override;

 private:
  DurableAppender out_;
};

// records.csv: flat columns for spreadsheets (means, sd, CV per phase).
class CsvSink : public RunListener {
 public:
  explicit CsvSink(const std::filesystem::path& path) : out_(path) {}
  void begin(const RunMeta&) override;
  void point(const Record& record) override;

 private:
  DurableAppender out_;
};

std::string csv_header();
std::string csv_row(const Record& r);

}  // namespace moesweep
