// Hands one bench figure to bench/record.py, the one formatter of bench lines and results (it
// prints the line and appends the record to $BENCH_RESULTS); see record.py for the fields.
#pragma once

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

namespace relforge::bench {

// A measured side of a comparison: wall and CPU seconds, peak RSS in MB (negative: not measured).
inline nlohmann::json side(const std::string& label, double wall_s, double cpu_s, double rss_mb = -1) {
  nlohmann::json out{{"label", label}, {"wall_s", wall_s}};
  if (cpu_s >= 0) out["cpu_s"] = cpu_s;
  if (rss_mb >= 0) out["rss_mb"] = rss_mb;
  return out;
}

// A target: `on` is speedup_wall, speedup_cpu, figure, ours_wall_ms or ours_rss_mb.
inline nlohmann::json target(const std::string& on, const std::string& op, double value,
                             const std::string& text) {
  return {{"on", on}, {"op", op}, {"value", value}, {"text", text}};
}

// x with `digits` digits after the point, for the notes of a record.
inline std::string fixed(double x, int digits = 2) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, x);
  return text;
}

// Prints the record's line through record.py; false when the record could not be written.
inline bool record(const nlohmann::json& rec) {
  const std::string command = "/usr/bin/python3 '" RELFORGE_BENCH_DIR "/record.py'";
  std::fflush(stdout);
  FILE* pipe = ::popen(command.c_str(), "w");
  if (pipe == nullptr) return false;
  const std::string text = rec.dump();
  std::fwrite(text.data(), 1, text.size(), pipe);
  return ::pclose(pipe) == 0;
}

}  // namespace relforge::bench
