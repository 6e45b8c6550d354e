#pragma once
// The text of a JSON library error, for a message that names the file.
#include <exception>
#include <string>

namespace moesweep {

// The exception's message without nlohmann's "[json.exception.*] " tag
// ("parse error at line 3, column 7: ..."): the tag says nothing to a reader
// of the file.
std::string json_error_text(const std::exception& e);

}  // namespace moesweep
