#include "engine/engine_registry.hpp"

#include "engine/engine_knobs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "engine/engine.hpp"
#include "engine/engine_file.hpp"
#include "engine/exec_tool.hpp"
#include "util/error.hpp"
#include "util/json_fields.hpp"
#include "util/json_file.hpp"
#include "util/parse_list.hpp"

namespace moesweep {
namespace fs = std::filesystem;

namespace {

UserError registry_error(const fs::path& registry, const std::string& what,
                         const std::error_code& ec) {
  return UserError(fmt::format("the engine registry {} {}{}", registry.string(), what,
                               ec ? ": " + ec.message() : ""),
                   "a folder this user can read and write ($MOESWEEP_ENGINES or --registry)",
                   "point $MOESWEEP_ENGINES (or --registry) at a folder of your own, e.g. "
                   "~/.local/share/moesweep/engines");
}

// /proc, /sys and /dev hold the kernel's files, never a build.
bool under_kernel_fs(const fs::path& path) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  for (const char* top : {"/proc", "/sys", "/dev"}) {
    const auto rel = p.lexically_relative(top);
    if (!rel.empty() && *rel.begin() != "..") return true;
  }
  return false;
}

constexpr int kEngineFileSchema = 1;
constexpr uint64_t kMaxEngineFileBytes = 1 << 20;

const FieldRows<RegisteredEngine>& engine_rows() {
  using E = RegisteredEngine;
  static const FieldRows<E> rows = {
      {"name", &E::name},
      {"kind", &E::kind},
      {"source", &E::source},
      {"build_flags", &E::build_flags},
      {"release", &E::release},
      {"commit", &E::commit},
      {"build", &E::build},
      {"cpu_variant", &E::cpu_variant},
      {"api", &E::api},
      {"reads", &E::reads},
      {"max_experts", &E::max_experts, 0, 1 << 20},
  };
  return rows;
}

std::vector<std::string> sorted_names(const fs::path& registry) {
  std::vector<std::string> names;
  if (!check_engine_registry(registry, false)) return names;
  std::error_code ec;
  fs::directory_iterator it(registry, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const fs::directory_entry& e = *it;
    const std::string name = e.path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code entry_ec;
    if (e.is_directory(entry_ec) && fs::is_regular_file(e.path() / "engine.json", entry_ec))
      names.push_back(name);
  }
  if (ec) throw registry_error(registry, "cannot be read", ec);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

bool check_engine_registry(const fs::path& registry, bool make) {
  if (under_kernel_fs(registry)) throw registry_error(registry, "is in a kernel file system", {});
  std::error_code ec;
  fs::file_status st = fs::status(registry, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw registry_error(registry, "cannot be reached", ec);
  if (!fs::exists(st)) {
    if (!make) return false;
    fs::create_directories(registry, ec);
    if (ec) throw registry_error(registry, "cannot be made", ec);
    st = fs::status(registry, ec);
  }
  if (!fs::is_directory(st)) throw registry_error(registry, "is not a folder", {});
  return true;
}

fs::path engine_registry_dir() {
  if (const char* d = std::getenv("MOESWEEP_ENGINES"); d && *d) return d;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x)
    return fs::path(x) / "moesweep" / "engines";
  if (const char* h = std::getenv("HOME"); h && *h)
    return fs::path(h) / ".local" / "share" / "moesweep" / "engines";
  return fs::temp_directory_path() / "moesweep-engines";
}

bool is_engine_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
}

void check_engine_name(const std::string& name, const std::string& origin) {
  const bool ok = !name.empty() && name.size() <= kEngineNameMax && name[0] != '.' &&
                  std::all_of(name.begin(), name.end(), is_engine_name_char);
  if (ok) return;
  throw UserError(fmt::format("{}: {} is not an engine name", origin, json_excerpt(name)),
                  "letters, digits, '.', '_' and '-', at most 64, not starting with '.'",
                  "pick a name such as main, pr-1234 or v0.5.0");
}

RegisteredEngine default_engine() {
  RegisteredEngine e;
  e.name = kDefaultEngineName;
  e.source = "the worker built with this moesweep";
  e.worker = default_worker_path();
  e.reads = split_list(MOESWEEP_ENGINE_READS);  // configured from the same engine as the worker
  e.max_experts = MOESWEEP_ENGINE_MAX_EXPERTS;
  return e;
}

namespace {

// The default engine with what its worker says about itself (one hello);
// a worker that does not start is listed with the reason.
RegisteredEngine default_engine_with_facts() {
  RegisteredEngine e = default_engine();
  try {
    const EngineFacts& f = engine_facts(e.worker);
    e.kind = f.kind.empty() ? e.kind : f.kind;
    e.release = f.release;
    e.commit = f.commit;
    e.build = f.build;
    e.cpu_variant = f.cpu_variant;
    e.api = f.api;
    e.reads = f.reads;
    e.max_experts = f.max_experts;
  } catch (const std::exception& err) {
    e.build = fmt::format("its worker does not start: {}", err.what());
  }
  return e;
}

}  // namespace

RegisteredEngine engine_from_json(const nlohmann::json& j, const std::string& origin) {
  const JsonFields f(j, origin);
  const int64_t schema = f.integer("schema", 1, 1000, 0);
  if (schema != kEngineFileSchema)
    f.fail("schema", fmt::format("{} (this moesweep's engine file version)", kEngineFileSchema));
  RegisteredEngine e;
  read_rows(f, e, engine_rows());
  e.worker = f.text("worker");
  e.exec = f.text("exec");
  e.exec_tool = f.text("exec_tool");
  check_engine_name(e.name, origin);
  if (e.kind == kExecEngineKind) {
    if (e.exec.empty() || !e.exec.is_absolute()) f.fail("exec", "an absolute path");
    if (!exec_tool_from_name(e.exec_tool)) f.fail("exec_tool", "llama-sweep-bench or llama-bench");
    return e;
  }
  if (e.worker.empty() || !e.worker.is_absolute()) f.fail("worker", "an absolute path");
  if (e.kind != "llama.cpp" && e.kind != kIkLlamaKind)
    f.fail("kind", "llama.cpp, ik_llama.cpp or exec");
  return e;
}

nlohmann::json to_json(const RegisteredEngine& engine) {
  nlohmann::json j = {{"schema", kEngineFileSchema}};
  write_rows(engine, engine_rows(), j);
  // 0 means "not known" (a file from before the worker reported it): left out, so such a
  // file reads and writes back unchanged.
  if (engine.max_experts == 0) j.erase("max_experts");
  j["worker"] = engine.worker.string();
  if (!engine.exec.empty()) j["exec"] = engine.exec.string();
  if (!engine.exec_tool.empty()) j["exec_tool"] = engine.exec_tool;
  return j;
}

RegisteredEngine read_engine_file(const fs::path& file) {
  return engine_from_json(read_json_file(file, "engine file", kMaxEngineFileBytes), file.string());
}

void write_engine_file(const fs::path& file, const RegisteredEngine& engine) {
  write_file_atomically(file, to_json(engine).dump(2) + "\n");
}

std::vector<RegisteredEngine> list_engines(const fs::path& registry) {
  std::vector<RegisteredEngine> out = {default_engine_with_facts()};
  for (const std::string& name : sorted_names(registry))
    out.push_back(read_engine_file(registry / name / "engine.json"));
  return out;
}

RegisteredEngine find_engine(const fs::path& registry, const std::string& name) {
  if (name == kDefaultEngineName) return default_engine();
  check_engine_name(name, "--engine");
  const fs::path file = registry / name / "engine.json";
  std::error_code ec;
  if (fs::is_regular_file(file, ec)) {
    RegisteredEngine e = read_engine_file(file);
    if (e.name != name)
      throw UserError(
          fmt::format("{} names the engine '{}', not '{}'", file.string(), e.name, name),
          "an engine file in the folder of its own name",
          "remove the folder and add the engine again (moesweep engine add)");
    return e;
  }
  std::string known;
  for (const std::string& n : sorted_names(registry)) known += ", " + n;
  throw UserError(fmt::format("no engine called '{}' in {}", name, registry.string()),
                  fmt::format("a registered engine: {}{}", kDefaultEngineName, known),
                  fmt::format("register it first: moesweep engine add {} --release VERSION "
                              "(or --llama-cpp DIR); moesweep engine list shows them",
                              name));
}

}  // namespace moesweep
