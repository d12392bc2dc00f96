#include "npc/prof/units.hpp"

#include <cmath>
#include <cstdio>

namespace npc::prof {
std::string Units::fixed(double v, int digits) {
  if (!std::isfinite(v))
    return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// A path chosen by a budget (too many ops or breaks) was never timed on either side: a
// dash, not "0.00 ms", which read as if both sides took no time.
std::string Units::timed_ms(double ms) { return ms > 0.0 ? Units::ms(ms) : "-"; }

std::string Units::ms(double ms) {
  const double a = std::fabs(ms);
  if (a >= 1000.0)
    return fixed(ms / 1000.0, 2) + " s";
  if (a >= 100.0)
    return fixed(ms, 0) + " ms";
  if (a >= 10.0)
    return fixed(ms, 1) + " ms";
  if (a >= 1.0 || a == 0.0)
    return fixed(ms, 2) + " ms";
  if (a >= 0.01)
    return fixed(ms, 3) + " ms";
  return fixed(ms * 1000.0, 1) + " µs";
}

std::string Units::bytes(std::int64_t b) {
  const double v = static_cast<double>(b);
  if (b < 1024)
    return std::to_string(b) + " B";
  if (v < 1024.0 * 1024)
    return fixed(v / 1024, 1) + " KB";
  if (v < 1024.0 * 1024 * 1024)
    return fixed(v / (1024.0 * 1024), 1) + " MB";
  return fixed(v / (1024.0 * 1024 * 1024), 2) + " GB";
}

std::string Units::speedup(double x) {
  if (!(x > 0) || !std::isfinite(x))
    return "";
  return fixed(x, x >= 100 ? 0 : x >= 10 ? 1 : 2) + "×";
}

std::string Units::gbps(double g) {
  if (!(g > 0) || !std::isfinite(g))
    return "";
  return fixed(g, g >= 100 ? 0 : g >= 1 ? 1 : 3) + " GB/s";
}
} // namespace npc::prof
