#pragma once
// Memory for kernel outputs and materialized intermediates. Fresh pages cost a page
// fault and a zeroing each on first touch, and threads faulting into one process at
// once serialize in the kernel (measured: a 100 MB output written by two threads took
// 40 ms fresh, 8 ms in pages already faulted). Blocks freed by their arrays are kept
// (up to a byte budget) and handed out again for the next request of the same size;
// new large blocks ask for transparent huge pages (512x fewer faults).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace npc {

class BufferPool {
public:
  // Budget of freed bytes kept for reuse: NPC_POOL_MB (default 1024; 0 disables).
  static BufferPool& global();

  explicit BufferPool(size_t cached_limit_bytes);
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // A block of at least nbytes, 64-byte aligned (huge-page aligned when large).
  void* acquire(size_t nbytes);
  // Gives back a block from acquire(nbytes) (same nbytes).
  void release(void* p, size_t nbytes);

  size_t cached_bytes() const;
  void clear(); // frees every cached block
  static size_t rounded(size_t nbytes);

private:
  static void* map_block(size_t bytes);
  static void unmap_block(void* p, size_t bytes);

  mutable std::mutex mutex_;
  size_t limit_;
  size_t cached_ = 0;
  // rounded size -> cached blocks of exactly that size (most recent last: warm in cache)
  std::map<size_t, std::vector<void*>> free_;
  // every cached block, least recently released first: over budget, the oldest go, not
  // the block just released (a call that repeats needs that one; dropping it faulted
  // a fresh 200 MB output in every call of mul once blocks of other sizes filled the pool)
  std::vector<std::pair<size_t, void*>> age_;
};

} // namespace npc
