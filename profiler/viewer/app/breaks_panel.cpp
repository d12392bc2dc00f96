// Graph breaks: why tracing had to stop, where, the line, and what to do about it.
#include <string>

#include "npc/prof/source_location.hpp"
#include "panels.hpp"
#include "widgets.hpp"

namespace npc::viewer {
void draw_breaks(const SessionView& v, const Theme& t) {
  const auto& breaks = v.report.breaks;
  if (!section(t, "Graph breaks", breaks.size(), true, "None: tracing never had to stop."))
    return;
  ImGui::PushID("breaks");
  for (std::size_t i = 0; i < breaks.size(); ++i) {
    const auto& b = breaks[i];
    ImGui::PushID(static_cast<int>(i));
    pill(std::to_string(b.count) + "×", Theme::kWarn, Theme::kWarnBg, t.bold);
    ImGui::SameLine(0, 8);
    wrapped(b.reason, Theme::kText, t.bold);
    ImGui::Indent(4);
    const auto loc = prof::source_location(b.filename, b.lineno);
    if (!loc.empty()) {
      text(loc, Theme::kMuted, t.mono);
      if (!b.function.empty()) {
        ImGui::SameLine(0, 6);
        text("in " + b.function, Theme::kMuted);
      }
    }
    if (!b.code.empty())
      code_line(t, b.code);
    if (!b.hint.empty())
      wrapped("hint: " + b.hint, Theme::kLink);
    ImGui::Unindent(4);
    ImGui::Spacing();
    ImGui::PopID();
  }
  ImGui::PopID();
}
} // namespace npc::viewer
