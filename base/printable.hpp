#pragma once
// Text from outside the program (file paths, report rows, plugin messages and descriptions) made
// safe to print and to write as JSON, used by every line the tool prints.
#include <string>

namespace accsum {

// For messages and tables on a terminal: control characters (C0 including line breaks, DEL, C1),
// invisible format characters (\u{200B}, bidirectional controls, ...) and bytes that are not UTF-8
// escaped as \xNN or \u{NNNN}; valid UTF-8 text stays as it is, and the result is one line.
std::string printable(const std::string& s);
// For JSON: bytes that are not valid UTF-8 as the text \xNN (nlohmann::json refuses them).
std::string utf8_safe(const std::string& s);

}  // namespace accsum
