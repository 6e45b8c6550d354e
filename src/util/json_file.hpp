#pragma once
// Reading JSON data files (profiles, meta.json) with errors that name the file,
// the line and the fix instead of a bare parser exception.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <string_view>

namespace moesweep {

nlohmann::json read_json_file(const std::filesystem::path& path, std::string_view what);

// Typed field access: a missing or mistyped field is a UserError naming the
// file (`origin`), the field and the type wanted.
template <typename T>
T require_field(const nlohmann::json& obj, std::string_view key, std::string_view origin);
template <typename T>
T optional_field(const nlohmann::json& obj, std::string_view key, T fallback,
                 std::string_view origin);

// Writes via a temporary file and rename, so a reader never sees half a file.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace moesweep
