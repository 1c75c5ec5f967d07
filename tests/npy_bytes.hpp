#pragma once
// The bytes of hand-made .npy files (NumPy format version 1.0) for the readers' tests.
#include <cstddef>
#include <string>

namespace accsum::test {

// The header dict of a C-order array of dtype `descr` and shape text `shape`, e.g. "(3, 2)".
inline std::string npy_dict(const std::string& descr, const std::string& shape) {
  return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
}

// A version 1.0 file: magic, header length, the dict padded with spaces and a newline to a multiple
// of 64 bytes as numpy pads it, then `data`; header_len >= 0 states another header length.
inline std::string npy_file(const std::string& dict, const std::string& data = "", int header_len = -1) {
  std::string h = dict;
  h.append((64 - (10 + h.size() + 1) % 64) % 64, ' ');
  h += '\n';
  const size_t len = header_len >= 0 ? static_cast<size_t>(header_len) : h.size();
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>((len >> 8) & 0xff);
  return out + h + data;
}

}  // namespace accsum::test
