#include "Compact.hpp"

#include <cstring>

namespace npc {
namespace {

// One block. The branch-free store writes row i at place k whether or not it is kept;
// k < count holds at each store because the loop ends once count rows are kept (a
// store at k == count would land past this block's rows).
template <int64_t Bytes>
void block_fixed(const char* src, const uint8_t* mask, char* dst, int64_t m, int64_t count) {
  int64_t k = 0;
  for (int64_t i = 0; i < m && k < count; ++i) {
    std::memcpy(dst + k * Bytes, src + i * Bytes, Bytes);
    k += mask[i] != 0;
  }
}

void block_any(const char* src, const uint8_t* mask, char* dst, int64_t m, int64_t count,
               int64_t row_bytes) {
  int64_t k = 0;
  for (int64_t i = 0; i < m && k < count; ++i) {
    if (mask[i]) {   // wide rows: a copy per kept row, the branch is cheap beside it
      std::memcpy(dst + k * row_bytes, src + i * row_bytes, static_cast<size_t>(row_bytes));
      ++k;
    }
  }
}

} // namespace

void compact_rows(const char* src, const uint8_t* mask, char* dst, int64_t outer, int64_t m,
                  int64_t row_bytes, int64_t count) {
  if (count <= 0)
    return;
  for (int64_t o = 0; o < outer; ++o) {
    const char* s = src + o * m * row_bytes;
    char* d = dst + o * count * row_bytes;
    switch (row_bytes) {
    case 1: block_fixed<1>(s, mask, d, m, count); break;
    case 2: block_fixed<2>(s, mask, d, m, count); break;
    case 4: block_fixed<4>(s, mask, d, m, count); break;
    case 8: block_fixed<8>(s, mask, d, m, count); break;
    case 16: block_fixed<16>(s, mask, d, m, count); break;
    default: block_any(s, mask, d, m, count, row_bytes); break;
    }
  }
}

} // namespace npc
