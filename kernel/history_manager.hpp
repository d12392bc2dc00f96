#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "xeus/xhistory_manager.hpp"

namespace npc {
// In-memory history of this kernel session. Replaces xeus 2.4.1's own, which
// stores line numbers as strings, slices ranges off by one and searches
// unanchored regexes instead of IPython's globs.
class history_manager final : public xeus::xhistory_manager {
public:
  // The session number this kernel reports (IPython numbers sessions from 1;
  // 0 and negative numbers in requests mean "this session").
  static constexpr int current_session = 1;

  // xeus passes the client's "execution_count" field (usually absent, so 1)
  // as the line number; the interpreter tells us the real one, and the text
  // of the cell's result, right before xeus stores the input.
  void note_execution(int execution_count, std::optional<std::string> output);

private:
  struct entry {
    int line;
    std::string input;
    std::optional<std::string> output;
  };

  void configure_impl() override;
  void store_inputs_impl(int session, int line_num, const std::string& input,
                         const std::string& output) override;
  nl::json get_tail_impl(int n, bool raw, bool output) const override;
  nl::json get_range_impl(int session, int start, int stop, bool raw, bool output) const override;
  nl::json search_impl(const std::string& pattern, bool raw, bool output, int n,
                       bool unique) const override;

  static nl::json to_json(const entry& e, bool output);
  static nl::json reply(const std::vector<const entry*>& entries, bool output);

  mutable std::mutex m_mutex;
  std::vector<entry> m_entries;
  std::optional<int> m_pending_line;
  std::optional<std::string> m_pending_output;
};
} // namespace npc
