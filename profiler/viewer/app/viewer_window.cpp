// The one full-size window: the header and the timeline across, then two columns. Left:
// what happened (breaks, recompiles, fallbacks, timings, fused graphs); right: the kernels
// and their code.
#include <algorithm>

#include "panels.hpp"
#include "widgets.hpp"

namespace npc::viewer {
void draw_viewer(const ViewerModel& model, ViewerState& s, const Theme& t) {
  begin_full_window("npcompile-viewer");
  draw_header(model, t);
  if (const SessionView* v = model.view()) {
    // a Chrome trace has a timeline and nothing else to show: all the window is its
    const bool only = v->kind == "chrome trace";
    const float room = ImGui::GetContentRegionAvail().y;
    const float tall = only ? room : std::min(room * 0.5f, timeline_height(v->timeline));
    ImGui::BeginChild("timeline", {0, tall}, false);
    draw_timeline(*v, s, t, tall);
    ImGui::EndChild();
    if (only) {
      ImGui::End();
      return;
    }
    const float gap = 16;
    const float left = (ImGui::GetContentRegionAvail().x - gap) * 0.52f;
    ImGui::BeginChild("left", {left, 0}, false);
    draw_breaks(*v, t);
    draw_recompiles(*v, t);
    draw_fallbacks(*v, t);
    draw_timing(*v, t);
    draw_fusion(*v, t);
    ImGui::EndChild();
    ImGui::SameLine(0, gap);
    ImGui::BeginChild("right", {0, 0}, false);
    draw_kernels(*v, s, t);
    ImGui::EndChild();
  }
  ImGui::End();
}
} // namespace npc::viewer
