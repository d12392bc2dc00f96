// npcompile-viewer --compare BEFORE AFTER: the two sessions' summary lines, then what changed
// (npc/viewer/session_comparison.hpp): the headline numbers, each traced function, each
// graph break fixed or new. Better in green, worse in red.
#include <cstdio>
#include <string>

#include "npc/prof/units.hpp"
#include "panels.hpp"
#include "widgets.hpp"

namespace npc::viewer {
namespace {
std::string number(double v, bool is_time) {
  if (is_time)
    return prof::Units::ms(v);
  char buf[32];
  std::snprintf(buf, sizeof buf, v == static_cast<double>(static_cast<long long>(v)) ? "%.0f" : "%.2f", v);
  return buf;
}

ImU32 colour(Change c) {
  return c == Change::better ? Theme::kGood : c == Change::worse ? Theme::kBad : Theme::kMuted;
}

void cell(const std::string& s, ImU32 c = Theme::kText) {
  ImGui::TableNextColumn();
  text(s, c);
}

void change_cell(double before, double after, bool lower_is_better) {
  const ComparedNumber n{"", before, after, lower_is_better, false};
  cell(change_text(before, after), colour(change_of(n)));
}

void side(const char* label, const SessionView& v, const Theme& t) {
  pill(label, IM_COL32_WHITE, Theme::kMuted, t.bold);
  ImGui::SameLine();
  text(v.file.string(), Theme::kMuted, t.mono);
  text(v.summary, Theme::kText);
}

void summary_table(const SessionComparison& c, const Theme& t) {
  if (!section(t, "What changed", c.summary.size()))
    return;
  constexpr auto flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH;
  if (!ImGui::BeginTable("summary", 4, flags))
    return;
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 2.0f);
  ImGui::TableSetupColumn("before", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("after", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("change", ImGuiTableColumnFlags_WidthStretch, 1.4f);
  ImGui::TableHeadersRow();
  for (const auto& n : c.summary) {
    ImGui::TableNextRow();
    cell(n.what);
    cell(number(n.before, n.is_time));
    cell(number(n.after, n.is_time));
    cell(change_text(n.before, n.after), colour(change_of(n)));
  }
  ImGui::EndTable();
}

void functions_table(const SessionComparison& c, const Theme& t) {
  if (!section(t, "Per traced function", c.functions.size()))
    return;
  if (c.functions.empty()) {
    empty_note("No traced function in either session.");
    return;
  }
  constexpr auto flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH;
  if (!ImGui::BeginTable("functions", 7, flags))
    return;
  for (const char* h : {"function", "calls", "breaks", "compile", "change", "kernels", "change"})
    ImGui::TableSetupColumn(h, ImGuiTableColumnFlags_WidthStretch,
                            std::string(h) == "function" ? 2.0f : 1.0f);
  ImGui::TableHeadersRow();
  for (const auto& f : c.functions) {
    ImGui::TableNextRow();
    cell(f.function);
    cell(std::to_string(f.calls_before) + " -> " + std::to_string(f.calls_after));
    cell(std::to_string(f.breaks_before) + " -> " + std::to_string(f.breaks_after),
         colour(change_of({"", double(f.breaks_before), double(f.breaks_after), true, false})));
    cell(prof::Units::ms(f.compile_ms_after));
    change_cell(f.compile_ms_before, f.compile_ms_after, true);
    cell(prof::Units::ms(f.kernel_ms_after));
    change_cell(f.kernel_ms_before, f.kernel_ms_after, true);
  }
  ImGui::EndTable();
}

void breaks_table(const SessionComparison& c, const Theme& t) {
  if (!section(t, "Graph breaks, before and after", c.breaks.size()))
    return;
  if (c.breaks.empty()) {
    empty_note("No graph break in either session.");
    return;
  }
  for (const auto& b : c.breaks) {
    const std::string v = b.verdict();
    const ImU32 bg = v == "fixed" || v == "fewer" ? Theme::kGood
                     : v == "new" || v == "more"  ? Theme::kBad
                                                  : Theme::kMuted;
    pill(v, IM_COL32_WHITE, bg, t.bold);
    ImGui::SameLine();
    text(std::to_string(b.before) + " -> " + std::to_string(b.after) + "  " + b.reason,
         Theme::kText, t.bold);
    code_line(t, b.code);
  }
}
} // namespace

void draw_comparison(const SessionView& before, const SessionView& after,
                     const SessionComparison& c, const Theme& t) {
  begin_full_window("npcompile-viewer compare");
  text("npcompile: two sessions compared", Theme::kText, t.title);
  ImGui::Spacing();
  side("BEFORE", before, t);
  ImGui::Spacing();
  side("AFTER", after, t);
  ImGui::Spacing();
  // in a child, as the viewer's panels are: a header in the window itself reaches into its
  // padding, and the count badge (widgets.cpp) lands on the title's last letter
  ImGui::BeginChild("changes", {0, 0}, false);
  summary_table(c, t);
  functions_table(c, t);
  breaks_table(c, t);
  ImGui::EndChild();
  ImGui::End();
}
} // namespace npc::viewer
