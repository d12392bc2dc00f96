#include "history_manager.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <set>

namespace npc {
void history_manager::note_execution(int execution_count, std::optional<std::string> output) {
  std::lock_guard lock(m_mutex);
  m_pending_line = execution_count;
  m_pending_output = std::move(output);
}

void history_manager::configure_impl() {}

void history_manager::store_inputs_impl(int /*session*/, int line_num, const std::string& input,
                                        const std::string& /*output*/) {
  std::lock_guard lock(m_mutex);
  int line = m_pending_line.value_or(line_num);
  m_entries.push_back({line, input, std::move(m_pending_output)});
  m_pending_line.reset();
  m_pending_output.reset();
}

nl::json history_manager::to_json(const entry& e, bool output) {
  if (output) {
    nl::json out = e.output ? nl::json(*e.output) : nl::json(nullptr);
    return nl::json::array({current_session, e.line, nl::json::array({e.input, out})});
  }
  return nl::json::array({current_session, e.line, e.input});
}

nl::json history_manager::reply(const std::vector<const entry*>& entries, bool output) {
  nl::json history = nl::json::array();
  for (const entry* e : entries) {
    history.push_back(to_json(*e, output));
  }
  return {{"status", "ok"}, {"history", std::move(history)}};
}

nl::json history_manager::get_tail_impl(int n, bool /*raw*/, bool output) const {
  std::lock_guard lock(m_mutex);
  std::size_t count = std::min<std::size_t>(std::max(n, 0), m_entries.size());
  std::vector<const entry*> picked;
  for (auto it = m_entries.end() - static_cast<std::ptrdiff_t>(count); it != m_entries.end();
       ++it) {
    picked.push_back(&*it);
  }
  return reply(picked, output);
}

// Lines in [start, stop) of this session, as IPython's HistoryAccessor.get_range;
// stop <= 0 (or absent) means "to the end".
nl::json history_manager::get_range_impl(int session, int start, int stop, bool /*raw*/,
                                         bool output) const {
  std::lock_guard lock(m_mutex);
  std::vector<const entry*> picked;
  if (session <= 0 || session == current_session) {
    for (const entry& e : m_entries) {
      if (e.line >= start && (stop <= 0 || e.line < stop)) {
        picked.push_back(&e);
      }
    }
  }
  return reply(picked, output);
}

// The pattern is a glob matched against the whole input, as IPython's sqlite GLOB;
// the n most recent matches are kept, and with unique only the latest of equal inputs.
nl::json history_manager::search_impl(const std::string& pattern, bool /*raw*/, bool output, int n,
                                      bool unique) const {
  std::lock_guard lock(m_mutex);
  std::vector<const entry*> picked;
  std::set<std::string> seen;
  for (auto it = m_entries.rbegin(); it != m_entries.rend(); ++it) {
    if (n > 0 && static_cast<int>(picked.size()) >= n) {
      break;
    }
    if (::fnmatch(pattern.c_str(), it->input.c_str(), 0) != 0) {
      continue;
    }
    if (unique && !seen.insert(it->input).second) {
      continue;
    }
    picked.push_back(&*it);
  }
  std::reverse(picked.begin(), picked.end());
  return reply(picked, output);
}
} // namespace npc
