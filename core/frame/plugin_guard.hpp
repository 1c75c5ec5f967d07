#pragma once
// What a cpu plugin is handed (include/accsum/plugin.h, accsum_call): every buffer is mapped on
// its own pages, its last byte against an inaccessible page, so a write or read past its end
// faults at once (the crash handler names the plugin, core/frame/plugins.hpp); the inputs are
// mapped read-only, so a write into a `const` input faults too instead of changing the data the
// oracle and the other algorithms see; the slack before an output is filled with a pattern that
// is checked after each call. The cost (a copy of the inputs per kernel, a few pages) is
// measured in docs/plugins.md.
#include <cstddef>

namespace accsum::plugins {

class GuardedBuffer {
 public:
  GuardedBuffer() = default;
  // `bytes` zeroed bytes ending at a page boundary, between two inaccessible pages.
  explicit GuardedBuffer(size_t bytes);
  // A copy of src[0 .. bytes), mapped read-only.
  static GuardedBuffer read_only_copy(const void* src, size_t bytes);
  ~GuardedBuffer();
  GuardedBuffer(GuardedBuffer&& o) noexcept;
  GuardedBuffer& operator=(GuardedBuffer&& o) noexcept;
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  void* data() const { return data_; }
  // The pattern in the slack before data() is unchanged (nothing wrote just before the buffer).
  bool slack_intact() const;

 private:
  char* base_ = nullptr;  // the mapping: guard page, data pages, guard page
  size_t mapped_ = 0;
  char* data_ = nullptr;
  size_t slack_ = 0;  // bytes between the first data page and data_
};

}  // namespace accsum::plugins
