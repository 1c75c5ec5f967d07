#include "core/frame/plugin_guard.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <new>
#include <utility>
#include <vector>

namespace accsum::plugins {

namespace {
constexpr unsigned char kSlackPattern = 0xA5;

size_t page_bytes() {
  static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}
}  // namespace

GuardedBuffer::GuardedBuffer(size_t bytes) {
  const size_t page = page_bytes();
  const size_t data_pages = (bytes + page - 1) / page;
  mapped_ = (data_pages + 2) * page;
  void* m = ::mmap(nullptr, mapped_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) throw std::bad_alloc();
  base_ = static_cast<char*>(m);
  if (data_pages > 0 && ::mprotect(base_ + page, data_pages * page, PROT_READ | PROT_WRITE) != 0) {
    ::munmap(base_, mapped_);
    throw std::bad_alloc();
  }
  slack_ = data_pages * page - bytes;
  data_ = base_ + page + slack_;
  std::memset(base_ + page, kSlackPattern, slack_);  // the data bytes are zero (fresh anonymous pages)
}

GuardedBuffer GuardedBuffer::read_only_copy(const void* src, size_t bytes) {
  GuardedBuffer b(bytes);
  if (bytes > 0) {
    std::memcpy(b.data_, src, bytes);
    if (::mprotect(b.base_ + page_bytes(), b.slack_ + bytes, PROT_READ) != 0) throw std::bad_alloc();
  }
  return b;
}

GuardedBuffer::~GuardedBuffer() {
  if (base_) ::munmap(base_, mapped_);
}

GuardedBuffer::GuardedBuffer(GuardedBuffer&& o) noexcept
    : base_(std::exchange(o.base_, nullptr)),
      mapped_(std::exchange(o.mapped_, 0)),
      data_(std::exchange(o.data_, nullptr)),
      slack_(std::exchange(o.slack_, 0)) {}

GuardedBuffer& GuardedBuffer::operator=(GuardedBuffer&& o) noexcept {
  if (this != &o) {
    if (base_) ::munmap(base_, mapped_);
    base_ = std::exchange(o.base_, nullptr);
    mapped_ = std::exchange(o.mapped_, 0);
    data_ = std::exchange(o.data_, nullptr);
    slack_ = std::exchange(o.slack_, 0);
  }
  return *this;
}

bool GuardedBuffer::slack_intact() const {
  static const std::vector<unsigned char> pattern(page_bytes(), kSlackPattern);  // slack_ < one page
  return std::memcmp(base_ + page_bytes(), pattern.data(), slack_) == 0;
}

}  // namespace accsum::plugins
