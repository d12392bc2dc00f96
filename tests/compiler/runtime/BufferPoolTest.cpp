#include "BufferPool.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace npc {
namespace {

TEST(BufferPool, ReusesAFreedBlockOfTheSameSize) {
  BufferPool pool(size_t(64) << 20);
  void* a = pool.acquire(3 << 20);
  std::memset(a, 1, 3 << 20); // the whole block is usable
  pool.release(a, 3 << 20);
  EXPECT_EQ(pool.cached_bytes(), BufferPool::rounded(3 << 20));
  void* b = pool.acquire((3 << 20) - 100); // rounds to the same huge-page multiple
  EXPECT_EQ(a, b);
  EXPECT_EQ(pool.cached_bytes(), 0u);
  pool.release(b, (3 << 20) - 100);
}

TEST(BufferPool, LargeBlocksAreHugePageAlignedSmallOnes64Byte) {
  BufferPool pool(0);
  void* big = pool.acquire(5 << 20);
  void* small = pool.acquire(1000);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(big) % (2 << 20), 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small) % 64, 0u);
  pool.release(big, 5 << 20);
  pool.release(small, 1000);
  EXPECT_EQ(pool.cached_bytes(), 0u); // a zero budget keeps nothing
}

TEST(BufferPool, KeepsNoMoreThanItsBudget) {
  BufferPool pool(size_t(4) << 20);
  void* a = pool.acquire(4 << 20);
  void* b = pool.acquire(4 << 20);
  pool.release(a, 4 << 20);
  pool.release(b, 4 << 20); // over budget: unmapped
  EXPECT_EQ(pool.cached_bytes(), size_t(4) << 20);
  pool.clear();
  EXPECT_EQ(pool.cached_bytes(), 0u);
}

TEST(BufferPool, OverBudgetTheOldestBlocksGoNotTheOneJustReleased) {
  BufferPool pool(size_t(8) << 20);
  void* a = pool.acquire(4 << 20);
  void* b = pool.acquire(2 << 20);
  void* c = pool.acquire(6 << 20);
  pool.release(a, 4 << 20);
  pool.release(b, 2 << 20);
  pool.release(c, 6 << 20); // 12 MB cached would be over: a (oldest) goes, b stays
  EXPECT_EQ(pool.cached_bytes(), size_t(8) << 20);
  EXPECT_EQ(pool.acquire(6 << 20), c);
  EXPECT_EQ(pool.acquire(2 << 20), b);
  EXPECT_EQ(pool.cached_bytes(), 0u);
  pool.release(b, 2 << 20);
  pool.release(c, 6 << 20);
  void* big = pool.acquire(10 << 20);
  pool.release(big, 10 << 20); // larger than the whole budget: kept out, nothing evicted
  EXPECT_EQ(pool.cached_bytes(), size_t(8) << 20);
}

} // namespace
} // namespace npc
