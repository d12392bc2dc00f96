#include "npc/prof/compile_phases.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace npc::prof {
std::vector<std::pair<std::string, double>>
ordered_phases(const std::map<std::string, double>& phases) {
  static constexpr std::array<std::string_view, 6> kOrder{"trace",    "fusion",   "codegen",
                                                          "frontend", "optimize", "jit"};
  auto rank = [](const std::string& name) {
    auto it = std::find(kOrder.begin(), kOrder.end(), name);
    return static_cast<std::size_t>(it - kOrder.begin());
  };
  std::vector<std::pair<std::string, double>> out(phases.begin(), phases.end());
  std::stable_sort(out.begin(), out.end(),
                   [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
  return out;
}
} // namespace npc::prof
