// Text safe to print and to put in JSON (policy: base/printable.hpp).
#include "base/printable.hpp"

#include <cstdio>

namespace accsum {
namespace {

void append_hex(std::string& out, unsigned char c) {
  static const char* digits = "0123456789abcdef";
  out += "\\x";
  out += digits[c >> 4];
  out += digits[c & 15];
}

// Length of the valid UTF-8 sequence at s[i] (1-4), or 0 when it is not one.
size_t utf8_len(const std::string& s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  size_t len;
  unsigned cp;
  if (c >= 0xC2 && c <= 0xDF)
    len = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF)
    len = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4)
    len = 4, cp = c & 0x07;
  else
    return 0;
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    unsigned char cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = cp << 6 | (cc & 0x3F);
  }
  if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
    return 0;  // overlong or a surrogate
  return len;
}

// Invisible characters that change how a line reads: the byte-order mark U+FEFF, zero-width
// spaces and joiners U+200B..U+200F, line/paragraph separators and bidirectional controls
// U+2028..U+202E, word joiner and invisible operators U+2060..U+2064, isolates U+2066..U+2069.
bool invisible_format_char(unsigned cp) {
  return cp == 0xFEFF || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
         (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

std::string printable(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = utf8_len(s, i);
    bool c1 = len == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0;  // U+0080..U+009F
    if (len == 0 || c < 0x20 || c == 0x7F || c1) {
      append_hex(out, c);
      ++i;
      continue;
    }
    if (len == 3) {
      const unsigned cp = (c & 0x0Fu) << 12 | (static_cast<unsigned char>(s[i + 1]) & 0x3Fu) << 6 |
                          (static_cast<unsigned char>(s[i + 2]) & 0x3Fu);
      if (invisible_format_char(cp)) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "\\u{%04X}", cp);
        out += buf;
        i += 3;
        continue;
      }
    }
    out.append(s, i, len);
    i += len;
  }
  return out;
}

std::string utf8_safe(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    size_t len = utf8_len(s, i);
    if (len == 0) {
      append_hex(out, static_cast<unsigned char>(s[i]));
      ++i;
      continue;
    }
    out.append(s, i, len);
    i += len;
  }
  return out;
}

}  // namespace accsum
