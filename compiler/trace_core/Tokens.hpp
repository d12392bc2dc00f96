#pragma once
// A flat sequence of 64-bit tokens: the exact structure of a traced op (for the dtype
// cache) or of a whole graph (for the "same as last call" guard). Hashing and comparing
// one vector is far cheaper than building and hashing nested Python tuples.
#include <cstdint>
#include <cstring>
#include <vector>

namespace npc::trace {

using Tokens = std::vector<std::uint64_t>;

// Tags keep tokens of different kinds from colliding (1 vs 1.0 vs True).
enum Tag : std::uint64_t {
  kNone = 0x9e00,
  kBool,
  kInt,
  kFloat,
  kTuple,
  kList,
  kDict,
  kSlice,
  kEllipsis,
  kRef,
  kIdentity,   // an object compared by identity (held alive by its owner)
  kValue,      // an object compared with == (kept beside the tokens)
  kLazy,
  kLeaf,
  kNode,
};

inline std::uint64_t bits_of(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

struct TokensHash {
  std::size_t operator()(const Tokens& t) const noexcept {
    std::uint64_t h = 0xcbf29ce484222325ull ^ t.size();
    for (std::uint64_t x : t) {
      h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    }
    return static_cast<std::size_t>(h);
  }
};

} // namespace npc::trace
