#include "ThreadPool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace npc {
namespace {

struct Range {
  int64_t b, e;
  bool operator==(const Range&) const = default;
};

std::vector<Range> record(ThreadPool& pool, int64_t n, int64_t grain) {
  std::vector<Range> chunks(pool.num_chunks(n, grain), Range{-1, -1});
  pool.parallel_for(n, grain, [&](int64_t b, int64_t e, int c) { chunks.at(c) = {b, e}; });
  return chunks;
}

TEST(ThreadPool, CoversEveryIndexExactlyOnce) {
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    for (int64_t n : {0, 1, 7, 64, 1000, 100003}) {
      for (int64_t grain : {1, 3, 64, 4096}) {
        std::vector<std::atomic<int>> hits(n);
        pool.parallel_for(n, grain, [&](int64_t b, int64_t e, int) {
          for (int64_t i = b; i < e; ++i)
            hits[i].fetch_add(1);
        });
        for (int64_t i = 0; i < n; ++i)
          ASSERT_EQ(hits[i].load(), 1) << "n=" << n << " grain=" << grain;
      }
    }
  }
}

TEST(ThreadPool, ChunksAreDeterministicAndGrainAligned) {
  ThreadPool pool(4);
  for (int64_t n : {1, 10, 1000, 123457}) {
    for (int64_t grain : {1, 16, 1000}) {
      auto first = record(pool, n, grain);
      int64_t nchunks = ThreadPool::num_chunks(n, grain, 4);
      ASSERT_EQ(static_cast<int64_t>(first.size()), nchunks);
      int64_t expect_begin = 0;
      for (int64_t c = 0; c < nchunks; ++c) {
        int64_t b, e;
        ThreadPool::chunk_range(n, grain, nchunks, c, b, e);
        EXPECT_EQ(first[c], (Range{b, e}));
        EXPECT_EQ(b, expect_begin); // contiguous, in order
        EXPECT_LT(b, e);            // no empty chunk
        EXPECT_TRUE(b % grain == 0);
        expect_begin = e;
      }
      EXPECT_EQ(expect_begin, n);
      for (int rep = 0; rep < 5; ++rep)
        EXPECT_EQ(record(pool, n, grain), first);
      // Same thread count, different pool: same chunks.
      ThreadPool other(4);
      EXPECT_EQ(record(other, n, grain), first);
    }
  }
}

TEST(ThreadPool, UsesSeveralThreads) {
  ThreadPool pool(4);
  std::mutex m;
  std::vector<std::thread::id> ids;
  pool.parallel_for(64, 1, [&](int64_t, int64_t, int) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::lock_guard<std::mutex> lock(m);
    if (std::find(ids.begin(), ids.end(), std::this_thread::get_id()) == ids.end())
      ids.push_back(std::this_thread::get_id());
  });
  EXPECT_GE(ids.size(), 2u);
}

TEST(ThreadPool, PropagatesTheFirstException) {
  ThreadPool pool(3);
  for (int rep = 0; rep < 20; ++rep) {
    std::atomic<int> ran{0};
    EXPECT_THROW(pool.parallel_for(1000, 10,
                                   [&](int64_t b, int64_t, int) {
                                     ran++;
                                     if (b == 500)
                                       throw std::runtime_error("chunk failed");
                                   }),
                 std::runtime_error);
  }
  // Still usable afterwards.
  std::atomic<int64_t> sum{0};
  pool.parallel_for(100, 1, [&](int64_t b, int64_t e, int) { sum += e - b; });
  EXPECT_EQ(sum.load(), 100);
}

TEST(ThreadPool, ExceptionMessageSurvives) {
  ThreadPool pool(2);
  try {
    pool.parallel_for(10, 1, [](int64_t, int64_t, int c) {
      if (c == 0)
        throw std::invalid_argument("boom");
    });
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "boom");
  }
}

TEST(ThreadPool, NestedCallsRunInlineWithSameChunks) {
  ThreadPool pool(4);
  const int64_t n = 64, m = 1000;
  std::vector<std::atomic<int>> hits(n * m);
  auto inner_expected = record(pool, m, 7);
  std::atomic<bool> chunks_ok{true};
  pool.parallel_for(n, 1, [&](int64_t b, int64_t e, int) {
    for (int64_t i = b; i < e; ++i) {
      std::vector<Range> seen(pool.num_chunks(m, 7));
      pool.parallel_for(m, 7, [&](int64_t jb, int64_t je, int c) {
        seen[c] = {jb, je};
        for (int64_t j = jb; j < je; ++j)
          hits[i * m + j]++;
      });
      if (seen != inner_expected)
        chunks_ok = false;
    }
  });
  EXPECT_TRUE(chunks_ok.load());
  for (auto& h : hits)
    ASSERT_EQ(h.load(), 1);
}

TEST(ThreadPool, CallsFromSeveralThreads) {
  ThreadPool pool(3);
  std::vector<std::thread> callers;
  std::atomic<int64_t> total{0};
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&] {
      for (int rep = 0; rep < 50; ++rep)
        pool.parallel_for(1000, 10, [&](int64_t b, int64_t e, int) { total += e - b; });
    });
  for (auto& t : callers)
    t.join();
  EXPECT_EQ(total.load(), 4 * 50 * 1000);
}

TEST(ThreadPool, Resize) {
  ThreadPool pool(2);
  pool.set_num_threads(5);
  EXPECT_EQ(pool.num_threads(), 5);
  std::atomic<int64_t> sum{0};
  pool.parallel_for(1000, 1, [&](int64_t b, int64_t e, int) { sum += e - b; });
  EXPECT_EQ(sum.load(), 1000);
  pool.set_num_threads(1);
  EXPECT_EQ(pool.num_threads(), 1);
  pool.parallel_for(1000, 1, [&](int64_t b, int64_t e, int) { sum += e - b; });
  EXPECT_EQ(sum.load(), 2000);
}

TEST(ThreadPool, GlobalHonoursEnvironment) {
  // global() is created once per process; only check it is sane.
  EXPECT_GE(ThreadPool::global().num_threads(), 1);
}

// Not a check: prints the cost of a parallel_for with an empty body.
TEST(ThreadPool, EmptyBodyOverhead) {
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    const int reps = 2000;
    ThreadPool::Body body = [](int64_t, int64_t, int) {};
    for (int i = 0; i < 100; ++i)
      pool.parallel_for(1 << 20, 1024, body); // warm
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i)
      pool.parallel_for(1 << 20, 1024, body);
    double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
        reps;
    std::printf("[ overhead ] threads=%d chunks=%lld empty parallel_for: %.2f us\n", threads,
                static_cast<long long>(pool.num_chunks(1 << 20, 1024)), us);
  }
  // With an empty body the caller often finishes every chunk before a worker
  // wakes; this forces a worker to run one: the round trip of waking it.
  ThreadPool pool(2);
  const int reps = 200;
  double total_us = 0;
  int woke = 0;
  for (int i = 0; i < reps; ++i) {
    std::atomic<int> started{0};
    auto t0 = std::chrono::steady_clock::now();
    pool.parallel_for(2, 1, [&](int64_t, int64_t, int) {
      started++;
      auto limit = std::chrono::steady_clock::now() + std::chrono::milliseconds(5);
      while (started.load() < 2 && std::chrono::steady_clock::now() < limit)
        std::this_thread::yield();
    });
    total_us +=
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    woke += started.load() == 2;
  }
  std::printf("[ overhead ] threads=2, worker must run a chunk: %.2f us per parallel_for (%d/%d "
              "woke in time)\n",
              total_us / reps, woke, reps);
}

} // namespace
} // namespace npc
