#include "npc/prof/session.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "npc/prof/json_fields.hpp"
#include "npc/prof/schema.hpp"

namespace npc::prof {
Session::Session()
    : start_(std::chrono::steady_clock::now()),
      start_unix_us_(std::chrono::duration_cast<std::chrono::microseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count()),
      pid_(static_cast<int>(::getpid())) {}

Session& Session::global() {
  // Leaked on purpose: emitters may run during static destruction (atexit hooks in Python).
  static Session* s = new Session();
  return *s;
}

namespace {
// Events of one type kept, the oldest dropped first (NPC_MAX_RECORDS): a day-long notebook
// records millions, and every report and session file reads them all.
std::size_t max_records() {
  static const std::size_t n = [] {
    if (const char* s = std::getenv("NPC_MAX_RECORDS")) {
      char* end = nullptr;
      const long long v = std::strtoll(s, &end, 10);
      if (end != s && v > 0)
        return static_cast<std::size_t>(v);
    }
    return std::size_t{100000};
  }();
  return n;
}

template <class T> constexpr std::size_t idx = Session::index_of<T>();

// The index of a type name in EventData (kTypeCount for an unknown name).
std::size_t index_of_type(std::string_view type) {
  const auto types = event_types();
  std::size_t t = 0;
  while (t < types.size() && types[t] != type)
    ++t;
  return t;
}
} // namespace

std::size_t Session::cap(std::size_t type_index) {
  const std::size_t n = max_records();
  // a compiled graph's kernel sources and fusion graph weigh 3-4 KB each, twenty times a
  // kernel run: a fiftieth as many (a session at the caps holds some 100 MB, most of it the
  // timeline's kernel runs and traces)
  if (type_index == idx<KernelSource> || type_index == idx<FusionGraph>)
    return std::max<std::size_t>(1, n / 50);
  return n;
}

void Session::record(EventData data) {
  append(Event{now_us(), current_thread_id(), std::move(data)});
}

std::deque<Session::Kept>& Session::keep_locked(Event e) {
  const std::size_t t = e.data.index();
  kept_[t].push_back(Kept{appended_++, std::move(e)});
  ++totals_[t];
  return kept_[t];
}

void Session::append(Event e) {
  const std::size_t limit = cap(e.data.index());
  std::lock_guard lock(mu_);
  auto& kept = keep_locked(std::move(e));
  while (kept.size() > limit) {
    dropped_to_ = std::max(dropped_to_, kept.front().seq + 1);
    kept.pop_front();
  }
}

std::vector<Event> Session::merged(std::uint64_t from) const {
  std::vector<const Kept*> order;
  for (const auto& kept : kept_) {
    auto it = std::lower_bound(kept.begin(), kept.end(), from,
                               [](const Kept& k, std::uint64_t s) { return k.seq < s; });
    for (; it != kept.end(); ++it)
      order.push_back(&*it);
  }
  std::sort(order.begin(), order.end(),
            [](const Kept* a, const Kept* b) { return a->seq < b->seq; });
  std::vector<Event> out;
  out.reserve(order.size());
  for (const Kept* k : order)
    out.push_back(k->event);
  return out;
}

std::vector<Event> Session::snapshot() const {
  std::lock_guard lock(mu_);
  return merged(0);
}

std::vector<Event> Session::query(std::string_view type) const {
  const std::size_t t = index_of_type(type);
  std::lock_guard lock(mu_);
  std::vector<Event> out;
  if (t < kTypeCount)
    for (const auto& k : kept_[t])
      out.push_back(k.event);
  return out;
}

std::size_t Session::size() const {
  std::lock_guard lock(mu_);
  std::size_t n = 0;
  for (const auto& kept : kept_)
    n += kept.size();
  return n;
}

std::uint64_t Session::total(std::string_view type) const {
  const std::size_t t = index_of_type(type);
  std::lock_guard lock(mu_);
  return t < kTypeCount ? totals_[t] : 0;
}

void Session::clear_locked() {
  for (auto& kept : kept_)
    kept.clear();
  totals_.fill(0);
  appended_ = 0;
  dropped_to_ = 0;
  ++epoch_;
}

void Session::clear() {
  std::lock_guard lock(mu_);
  clear_locked();
}

std::vector<Event> Session::take() {
  std::lock_guard lock(mu_);
  auto out = merged(0);
  clear_locked();
  return out;
}

Session::Tail Session::tail(std::uint64_t from, std::uint64_t epoch) const {
  std::lock_guard lock(mu_);
  Tail t;
  t.next = appended_;
  t.epoch = epoch_;
  // dropped events the follower has not seen: it starts again from what is kept
  t.continues = epoch == epoch_ && from >= dropped_to_ && from <= appended_;
  t.events = merged(t.continues ? from : 0);
  return t;
}

std::int64_t Session::now_us() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                               start_)
      .count();
}

std::uint32_t Session::current_thread_id() {
  static std::atomic<std::uint32_t> next{1};
  thread_local const std::uint32_t id = next.fetch_add(1);
  return id;
}

void Session::set_thread_name(std::uint32_t tid, std::string name) {
  std::lock_guard lock(mu_);
  thread_names_[tid] = std::move(name);
}

std::map<std::uint32_t, std::string> Session::thread_names() const {
  std::lock_guard lock(mu_);
  return thread_names_;
}

void Session::restore(std::vector<Event> events, std::map<std::uint32_t, std::string> names,
                      std::int64_t start_unix_us, int pid) {
  std::lock_guard lock(mu_);
  clear_locked();  // a loaded document is shown whole: its events are not trimmed to the caps
  for (auto& e : events)
    keep_locked(std::move(e));
  thread_names_ = std::move(names);
  start_unix_us_ = start_unix_us;
  pid_ = pid;
}

nlohmann::json thread_names_json(const Session& s) {
  nlohmann::json threads = nlohmann::json::object();
  for (const auto& [tid, name] : s.thread_names())
    threads[std::to_string(tid)] = name;
  return threads;
}

void to_json(nlohmann::json& j, const Session& s) {
  j = nlohmann::json{{"schema", kSchemaName},
                     {"version", kSchemaVersion},
                     {"kind", "session"},
                     {"pid", s.pid()},
                     {"start_unix_us", s.start_unix_us()},
                     {"threads", thread_names_json(s)},
                     {"events", s.snapshot()}};
}

void from_json(const nlohmann::json& j, Session& s) {
  constexpr std::string_view ctx = "session document";
  detail::expect_document(j, ctx);
  std::vector<Event> events;
  std::map<std::string, std::string> threads;
  std::int64_t start = s.start_unix_us();
  int pid = s.pid();
  detail::required(j, ctx, "events", events);
  detail::optional(j, ctx, "threads", threads);
  detail::optional(j, ctx, "start_unix_us", start);
  detail::optional(j, ctx, "pid", pid);
  std::map<std::uint32_t, std::string> names;
  for (const auto& [k, v] : threads) {
    try {
      names[static_cast<std::uint32_t>(std::stoul(k))] = v;
    } catch (const std::exception&) {
      throw SchemaError(std::string(ctx) + ": thread id '" + k + "' is not a number");
    }
  }
  s.restore(std::move(events), std::move(names), start, pid);
}
} // namespace npc::prof
