// The top of the window: what file, from which process, and the summary line.
#include <chrono>
#include <ctime>
#include <string>

#include "npc/prof/units.hpp"
#include "panels.hpp"
#include "widgets.hpp"

namespace npc::viewer {
namespace {
std::string utc(std::int64_t unix_us) {
  const std::time_t secs = static_cast<std::time_t>(unix_us / 1000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

std::string local_time(std::chrono::system_clock::time_point t) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  localtime_r(&secs, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%H:%M:%S", &tm);
  return buf;
}
} // namespace

void draw_header(const ViewerModel& model, const Theme& t) {
  const SessionView* v = model.view();
  text("npcompile session", Theme::kText, t.title);
  ImGui::SameLine(0, 12);
  ImGui::SetCursorPosY(ImGui::GetCursorPosY() + 3);
  const auto file = v ? v->file : model.source().path();
  text(file.string(), Theme::kMuted, t.mono);
  if (v) {
    std::string meta;
    if (v->kind == "report")
      meta = "a saved report";
    else if (v->kind == "chrome trace")
      meta = "a Chrome trace: its timeline";
    else
      meta = "pid " + std::to_string(v->pid) + " · started " + utc(v->start_unix_us) + " · " +
             std::to_string(v->events) + (v->events == 1 ? " event" : " events");
    if (model.attached()) {
      meta += " · updated " + local_time(model.loaded_at());
      text(meta, Theme::kMuted);
      const bool live = model.live();
      pill(live ? "LIVE" : "OFFLINE", IM_COL32_WHITE, live ? Theme::kGood : Theme::kBad, t.bold);
      ImGui::SameLine();
      text(model.attach_status(), Theme::kMuted);
    } else {
      meta += " · loaded " + local_time(model.loaded_at());
      if (model.loads() > 1)
        meta += " (reloaded " + std::to_string(model.loads() - 1) + "×)";
      meta += " · reloads when the file changes";
      text(meta, Theme::kMuted);
    }
  }
  if (!model.error().empty()) {
    ImGui::Spacing();
    pill("!", IM_COL32_WHITE, Theme::kBad, t.bold);
    ImGui::SameLine();
    wrapped(model.error(), Theme::kBad);
  }
  if (!v)
    return;

  // The summary line in a band, its first line bold; a measured speedup gets a green pill.
  ImGui::Spacing();
  const auto nl = v->summary.find('\n');
  const auto first = std::string_view(v->summary).substr(0, nl);
  const auto second = nl == std::string::npos ? std::string_view()
                                              : std::string_view(v->summary).substr(nl + 1);
  const ImVec2 pos = ImGui::GetCursorScreenPos();
  const float w = ImGui::GetContentRegionAvail().x;
  const float h = ImGui::GetTextLineHeightWithSpacing() * 2 + 14;
  auto* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(pos, {pos.x + w, pos.y + h}, Theme::kPanel, 6);
  dl->AddRect(pos, {pos.x + w, pos.y + h}, Theme::kBorder, 6);
  ImGui::SetCursorScreenPos({pos.x + 12, pos.y + 7});
  ImGui::BeginGroup();
  text(first, Theme::kText, t.bold);
  text(second, Theme::kText);
  ImGui::EndGroup();
  const auto& s = v->report.summary;
  if (s.speedup > 0) {
    const std::string label = prof::Units::speedup(s.speedup) + " speedup over eager NumPy";
    ImGui::PushFont(t.bold);
    const float lw = ImGui::CalcTextSize(label.c_str()).x + 14;
    ImGui::PopFont();
    ImGui::SetCursorScreenPos({pos.x + w - lw - 12, pos.y + (h - ImGui::GetTextLineHeight()) / 2});
    pill(label, s.speedup >= 1 ? Theme::kGood : Theme::kWarn,
         s.speedup >= 1 ? Theme::kGoodBg : Theme::kWarnBg, t.bold);
  }
  ImGui::SetCursorScreenPos({pos.x, pos.y + h + 6});
}
} // namespace npc::viewer
