#include "util/hash.hpp"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <fstream>
#include <memory>
#include <vector>

#include "util/error.hpp"
#include "util/json_file.hpp"
#include "util/paths.hpp"

#include <nlohmann/json.hpp>

namespace moesweep {
namespace {

std::string to_hex(const unsigned char* digest, unsigned len) {
  std::string out;
  out.reserve(len * 2);
  for (unsigned i = 0; i < len; ++i) out += fmt::format("{:02x}", digest[i]);
  return out;
}

using DigestCtx = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

}  // namespace

std::string sha256_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw UserError(fmt::format("cannot read '{}'", path.string()), "a readable file",
                    "check the path and its permissions");
  }
  DigestCtx ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<size_t>(in.gcount()));
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &len);
  return to_hex(digest, len);
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &len, EVP_sha256(), nullptr);
  return to_hex(digest, len);
}

std::string compute_model_fingerprint(const std::filesystem::path& path) {
  constexpr uint64_t kFullLimit = uint64_t{8} << 30;
  constexpr uint64_t kSample = uint64_t{256} << 20;
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) {
    throw UserError(fmt::format("cannot read '{}'", path.string()), "a readable file",
                    "check the path");
  }
  if (size <= kFullLimit) return sha256_file(path);
  std::ifstream in(path, std::ios::binary);
  DigestCtx ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
  EVP_DigestUpdate(ctx.get(), &size, sizeof(size));
  std::vector<char> buf(1 << 20);
  for (uint64_t start : {uint64_t{0}, size - kSample}) {
    in.seekg(static_cast<std::streamoff>(start));
    for (uint64_t done = 0; done < kSample && in; done += buf.size()) {
      in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
      EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<size_t>(in.gcount()));
    }
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &len);
  return "sha256-head-tail:" + to_hex(digest, len);
}

uint64_t fnv1a64(std::string_view bytes, uint64_t seed) {
  uint64_t h = seed;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace moesweep

namespace moesweep {

// Hashing a big model on every run would cost minutes: remember the result
// per (path, size, mtime) in the user cache; a rewritten file gets a new key.
std::string model_fingerprint(const std::filesystem::path& path) {
  std::error_code ec;
  const auto abs = std::filesystem::absolute(path, ec);
  const auto size = std::filesystem::file_size(path, ec);
  const auto mtime = std::filesystem::last_write_time(path, ec).time_since_epoch().count();
  if (ec) return compute_model_fingerprint(path);  // throws the readable error
  const std::string key = fmt::format("{}|{}|{}", abs.string(), size, mtime);
  const std::filesystem::path store = cache_dir() / "fingerprints.jsonl";
  {
    std::ifstream in(store);
    std::string line;
    while (std::getline(in, line)) {
      const auto j = parse_json_or_discarded(line);
      // A cache line of another shape (hand-edited, torn) is no answer: hash again.
      if (!j.is_object() || !j.contains("key") || !j.contains("fingerprint")) continue;
      const nlohmann::json &k = j["key"], &found = j["fingerprint"];
      if (k.is_string() && found.is_string() && k.get_ref<const std::string&>() == key)
        return found.get<std::string>();
    }
  }
  const std::string fp = compute_model_fingerprint(path);
  std::filesystem::create_directories(store.parent_path(), ec);
  std::ofstream(store, std::ios::app)
      << nlohmann::json({{"key", key}, {"fingerprint", fp}}).dump() << "\n";
  return fp;
}

}  // namespace moesweep
