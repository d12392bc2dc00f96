#pragma once
// The picture of a fused graph as inline SVG: NumPy op boxes in one column band per
// kernel (coloured by kernel), rows by data-flow depth, arrows from inputs to consumers.
// Colours are presentation attributes, so the picture survives CSS sanitizers.
#include <string>
#include <string_view>

#include "npc/prof/fusion_graph.hpp"

namespace npc::prof {
class FusionGraphSvg {
public:
  // Above this the picture is no longer readable; the HTML report says so instead.
  static constexpr std::size_t kMaxNodes = 150;
  // `uid` makes element ids (the arrow marker) unique within a page.
  static std::string render(const FusionGraph& graph, std::string_view uid);
};
} // namespace npc::prof
