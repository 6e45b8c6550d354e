#pragma once
// engine.json's content (engine_registry.hpp reads and writes the file):
// the typed reader on parsed JSON, which fuzz_engine_file runs on any bytes,
// and its writer. Every field is checked for type and value; a wrong one is
// a UserError (exit 2) naming `origin` and the field. to_json writes what
// engine_from_json reads back unchanged.
#include <nlohmann/json.hpp>
#include <string>

#include "engine/engine_registry.hpp"

namespace moesweep {

RegisteredEngine engine_from_json(const nlohmann::json& j, const std::string& origin);
nlohmann::json to_json(const RegisteredEngine& engine);

}  // namespace moesweep
