#include "BufferPool.hpp"

#include <cstdlib>
#include <new>
#include <sys/mman.h>

namespace npc {

namespace {
constexpr size_t kPage = 4096;
constexpr size_t kHuge = size_t(2) << 20;

size_t env_limit() {
  if (const char* s = std::getenv("NPC_POOL_MB")) {
    char* end = nullptr;
    long long v = std::strtoll(s, &end, 10);
    if (end != s && v >= 0)
      return static_cast<size_t>(v) << 20;
  }
  return size_t(1024) << 20;
}
} // namespace

BufferPool& BufferPool::global() {
  // Leaked on purpose: arrays may be released during interpreter shutdown, after
  // static destructors would have run.
  static BufferPool* pool = new BufferPool(env_limit());
  return *pool;
}

BufferPool::BufferPool(size_t cached_limit_bytes) : limit_(cached_limit_bytes) {}

BufferPool::~BufferPool() { clear(); }

size_t BufferPool::rounded(size_t nbytes) {
  // Huge-page multiples for large blocks, so that sizes that differ a little share
  // blocks and whole huge pages back them; page multiples below.
  size_t unit = nbytes >= kHuge ? kHuge : kPage;
  return (std::max<size_t>(nbytes, 1) + unit - 1) / unit * unit;
}

void* BufferPool::map_block(size_t bytes) {
  if (bytes < kHuge) {
    void* p = std::aligned_alloc(64, bytes);
    if (p == nullptr)
      throw std::bad_alloc();
    return p;
  }
  // Over-map by a huge page and trim, so the block starts on a huge-page boundary.
  size_t span = bytes + kHuge;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED)
    throw std::bad_alloc();
  auto base = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = (base + kHuge - 1) / kHuge * kHuge;
  if (aligned > base)
    munmap(raw, aligned - base);
  size_t tail = (base + span) - (aligned + bytes);
  if (tail > 0)
    munmap(reinterpret_cast<void*>(aligned + bytes), tail);
  void* p = reinterpret_cast<void*>(aligned);
  madvise(p, bytes, MADV_HUGEPAGE); // a hint: without THP it changes nothing
  return p;
}

void BufferPool::unmap_block(void* p, size_t bytes) {
  if (bytes < kHuge)
    std::free(p);
  else
    munmap(p, bytes);
}

void* BufferPool::acquire(size_t nbytes) {
  size_t bytes = rounded(nbytes);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = free_.find(bytes);
    if (it != free_.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      age_.erase(std::find(age_.begin(), age_.end(), std::make_pair(bytes, p)));
      cached_ -= bytes;
      return p;
    }
  }
  return map_block(bytes);
}

void BufferPool::release(void* p, size_t nbytes) {
  if (p == nullptr)
    return;
  size_t bytes = rounded(nbytes);
  std::vector<std::pair<size_t, void*>> evicted;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (bytes > limit_) {
      evicted.emplace_back(bytes, p);
    } else {
      size_t old = 0;
      while (cached_ + bytes > limit_) { // the least recently released blocks go
        auto [size, q] = age_[old++];
        auto& same = free_[size];
        same.erase(std::find(same.begin(), same.end(), q));
        cached_ -= size;
        evicted.emplace_back(size, q);
      }
      age_.erase(age_.begin(), age_.begin() + static_cast<std::ptrdiff_t>(old));
      free_[bytes].push_back(p);
      age_.emplace_back(bytes, p);
      cached_ += bytes;
    }
  }
  for (auto [size, q] : evicted) // outside the lock: munmap of a large block is slow
    unmap_block(q, size);
}

size_t BufferPool::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cached_;
}

void BufferPool::clear() {
  std::map<size_t, std::vector<void*>> blocks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    blocks.swap(free_);
    age_.clear();
    cached_ = 0;
  }
  for (auto& [bytes, ps] : blocks)
    for (void* p : ps)
      unmap_block(p, bytes);
}

} // namespace npc
